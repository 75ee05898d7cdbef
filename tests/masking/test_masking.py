"""Masking at ingress: every kind masked, every diagnostic fact kept, line structure intact."""

from __future__ import annotations

import argparse
import base64
import gc
import gzip
import json
import random
import re
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
import yaml

from bot.masking import Masker, MaskResult, mask

DATA = Path(__file__).parents[1] / "data" / "masking"
PLACEHOLDER = re.compile(r"<(?:SECRET:[a-z0-9-]+|IP|IPV6|HOST|EMAIL|USER|MAC|NAME|ACCOUNT|SERIAL|PHONE|SSN|CARD|IBAN|ADDRESS)-\d+>")

# (line with a planted value, the value, the placeholder kind it must get)
SECRETS = [
    # A SAS URL in a Go program's JSON log: its `&` escaped as `\u0026`.
    ('{"url": "https://acct.blob.core.windows.net/c/x.bin?sv=2022-11-02\\u0026se=2026-04-01\\u0026sig=Qm7Rt2Vx9Lp4Kd8Nw3Hs6Bz1Fy5Jc0GaQm7Rt2Vx9L%3D"}', "Qm7Rt2Vx9Lp4Kd8Nw3Hs6Bz1Fy5Jc0GaQm7Rt2Vx9L%3D", "SECRET:sas-signature"),
    # A key's fallback in the source a traceback shows.
    ('    client = Mistral(api_key=os.environ.get("MISTRAL_API_KEY", "Qm7Rt2Vx9Lp4Kd8Nw3Hs6Bz1Fy5Jc0Ga"))', "Qm7Rt2Vx9Lp4Kd8Nw3Hs6Bz1Fy5Jc0Ga", "SECRET:api-key"),
    ("export HF_TOKEN=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", "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", "SECRET:hf-token"),
    ("org token 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 used", "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", "SECRET:hf-token"),
    ("WANDB_API_KEY=bb65ba2f177371e50ff7bf5a5e5ec85887951cc9", "bb65ba2f177371e50ff7bf5a5e5ec85887951cc9", "SECRET:wandb-key"),
    ("wandb: login key bb65ba2f177371e50ff7bf5a5e5ec85887951cc9 ok", "bb65ba2f177371e50ff7bf5a5e5ec85887951cc9", "SECRET:wandb-key"),
    ("$ wandb login bb65ba2f177371e50ff7bf5a5e5ec85887951cc9", "bb65ba2f177371e50ff7bf5a5e5ec85887951cc9", "SECRET:wandb-key"),
    ("key=local-64e5ba0015a8ce2a2bf90f0ace7dc860fd2622ed", "local-64e5ba0015a8ce2a2bf90f0ace7dc860fd2622ed", "SECRET:wandb-key"),
    ("wandb.login(key='wandb_v1_sj858RUDJkT96J01JkLEtRM2Ap9_sUtE9UzQn2JRXBjNO2Dz7sT')", "wandb_v1_sj858RUDJkT96J01JkLEtRM2Ap9_sUtE9UzQn2JRXBjNO2Dz7sT", "SECRET:wandb-key"),
    ("AWS_ACCESS_KEY_ID=AKIAOXJVGUXI23G24W4E", "AKIAOXJVGUXI23G24W4E", "SECRET:aws-access-key"),
    ("creds ASIAZGYSLBHOWWZXNNTQ expired", "ASIAZGYSLBHOWWZXNNTQ", "SECRET:aws-access-key"),
    ("aws_secret_access_key = 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", "/Qn7rm8cDo6+FqkWhA54D/5PNH4pfEQfL9I8dcQJ", "SECRET:aws-secret-key"),
    ('"SecretAccessKey": "Qn7rm8cDo6+FqkWhA54D/5PNH4pfEQfL9I8dcQJx"', "Qn7rm8cDo6+FqkWhA54D/5PNH4pfEQfL9I8dcQJx", "SECRET:aws-secret-key"),
    # smtplib's debug output: AUTH PLAIN carries the user and password in base64.
    ("send: 'AUTH PLAIN AGFsZXJ0c0BrZXN0cmVsLmlvAGxNdXlIYnNGOH5leTE=\\r\\n'", "AGFsZXJ0c0BrZXN0cmVsLmlvAGxNdXlIYnNGOH5leTE=", "SECRET:password"),
    ("OPENAI_API_KEY=sk-WLG9ou9m8LchQKMz7VOCLD7owfkajRYW6PYJL5sxrr3bdUuX", "sk-WLG9ou9m8LchQKMz7VOCLD7owfkajRYW6PYJL5sxrr3bdUuX", "SECRET:openai-key"),
    ("client = OpenAI(api_key='sk-proj-7n0VAyN-FJ_wDh3gytSOCENrF0BLSRjq4F6anBBbyWb6nX3PZ8XG')", "sk-proj-7n0VAyN-FJ_wDh3gytSOCENrF0BLSRjq4F6anBBbyWb6nX3PZ8XG", "SECRET:openai-key"),
    ("x-api-key: sk-ant-api03-pF1Y0CxYH805lh0a5s3NBvHdj5GApZnoh_-Y46HFlhfu9q_aaaa", "sk-ant-api03-pF1Y0CxYH805lh0a5s3NBvHdj5GApZnoh_-Y46HFlhfu9q_aaaa", "SECRET:anthropic-key"),
    ("remote: ghp_988jkN4XhyP7ZQqvw2aMLrR64lJXw2CijgIt rejected", "ghp_988jkN4XhyP7ZQqvw2aMLrR64lJXw2CijgIt", "SECRET:github-token"),
    ("GH_TOKEN=github_pat_11DIDIC9U8ZHV6UV4IL90JP9_HwBUvn7UI94VZbEehfRxJwf3aaaaaaaaaaaaaaaa", "github_pat_11DIDIC9U8ZHV6UV4IL90JP9_HwBUvn7UI94VZbEehfRxJwf3aaaaaaaaaaaaaaaa", "SECRET:github-token"),
    ("token xoxb-995049338985-6861427560807-H5Ezkm6ujd9xeKAorAkktSLd", "xoxb-995049338985-6861427560807-H5Ezkm6ujd9xeKAorAkktSLd", "SECRET:slack-token"),
    ("POST https://hooks.slack.com/services/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 failed", "T0FG4UQ7BH/B0WSJDA0LX/0w6kegUpl1hxZUL2KiSBAJeV", "SECRET:slack-webhook"),
    ("GOOGLE_API_KEY=AIzaL6eiIFiUwxPS_xisV5JtxBOHEf1JsAQv_FX1234", "AIzaL6eiIFiUwxPS_xisV5JtxBOHEf1JsAQv_FX1234", "SECRET:google-api-key"),
    ("AccountKey=xoYGirEIn+A1RlG87tkhd/SU03VhApYnpl5NAsqZusuLh6Gvrs5XLaImPv1HxoYGirEIn+A1RlG87tkhd/SU03VhApYn==;", "xoYGirEIn+A1RlG87tkhd/SU03VhApYnpl5NAsqZusuLh6Gvrs5XLaImPv1HxoYGirEIn+A1RlG87tkhd/SU03VhApYn==", "SECRET:azure-storage-key"),
    ("https://acct.blob.core.windows.net/c/b?sv=2022-11-02&se=2024-06-01&sp=r&sig=aj8Vim3bm9GaJ%2BH0EshADZ8%3D", "aj8Vim3bm9GaJ%2BH0EshADZ8%3D", "SECRET:sas-signature"),
    ("client_secret: YWq8Q~gH.qzCB7VcM4i_q..NWGP9vfxky41NA_8A", "YWq8Q~gH.qzCB7VcM4i_q..NWGP9vfxky41NA_8A", "SECRET:client-secret"),
    ("NGC_API_KEY=nvapi-mHr80d6Jx8AvFM_Yf87cGqWa3kXQGqiRnSPelNaNWmWfRDhHbBZWFF12", "nvapi-mHr80d6Jx8AvFM_Yf87cGqWa3kXQGqiRnSPelNaNWmWfRDhHbBZWFF12", "SECRET:ngc-key"),
    ("Authorization: Bearer tdecXLFJNZwInWSBwP4NmP3qLRt5y7UtAZsGgWCA", "tdecXLFJNZwInWSBwP4NmP3qLRt5y7UtAZsGgWCA", "SECRET:token"),
    ("curl -H 'Authorization: Basic c3ZjLWNpOjltcWhPeUJJSzNXY3VaeHQ=' x", "c3ZjLWNpOjltcWhPeUJJSzNXY3VaeHQ=", "SECRET:basic-auth"),
    ("sa token eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW06c2EifQ.c2lnbmF0dXJlX2J5dGVz", "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW06c2EifQ.c2lnbmF0dXJlX2J5dGVz", "SECRET:jwt"),
    ("kubeadm token create: f6p6ze.6togmqj9ccc5omo7", "f6p6ze.6togmqj9ccc5omo7", "SECRET:kube-token"),
    ("git clone https://alice:Zk9sR2xlX3Rva2Vu@git.acme.internal/x.git", "Zk9sR2xlX3Rva2Vu", "SECRET:password"),
    ("redis.exceptions.ConnectionError: redis://:p4ssw0rd-Redis@10.0.0.5:6379/0", "p4ssw0rd-Redis", "SECRET:password"),
    ("amqp://guest:Rabb1tMQ-secret@mq:5672/", "Rabb1tMQ-secret", "SECRET:password"),
    ("PGPASSWORD='Falcon2024!' psql -h db -U ml", "Falcon2024!", "SECRET:password"),
    ("mysql -u root -pS3cr3tpjGHwi -h db01", "S3cr3tpjGHwi", "SECRET:password"),
    ("train.py --password 'hunter two' --epochs 3", "hunter two", "SECRET:password"),
    ('{"db": {"password": "Tr0ub4dor&3xyz"}}', "Tr0ub4dor&3xyz", "SECRET:password"),
    ('{\\"password\\": \\"Tr0ub4dor-3xyz\\"}', "Tr0ub4dor-3xyz", "SECRET:password"),
    ("  password: correct horse battery staple", "correct horse battery staple", "SECRET:password"),
    ("machine api.wandb.ai login user password fdc3ae89398ff99fa26e5f61819d7eab6efcecfb", "fdc3ae89398ff99fa26e5f61819d7eab6efcecfb", "SECRET:wandb-key"),
    ("machine git.acme.internal login ci password Zk9sR2xl-X3Rva2Vu", "Zk9sR2xl-X3Rva2Vu", "SECRET:password"),
    ("docker login -u ci -p hfRTVpBOXg6td56SWgvf registry.acme.internal", "hfRTVpBOXg6td56SWgvf", "SECRET:password"),
    ('"auth": "YWxpY2U6cWJDY3dxMjlEYVBFUEJON3RkTTM="', "YWxpY2U6cWJDY3dxMjlEYVBFUEJON3RkTTM=", "SECRET:docker-auth"),
    ("?X-Amz-Credential=AKIAOXJVGUXI23G24W4E%2F20240501%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=1", "AKIAOXJVGUXI23G24W4E%2F20240501%2Fus-east-1%2Fs3%2Faws4_request", "SECRET:aws-credential"),
    ("&X-Amz-Signature=4cf7d0cf99d849a2766a3acf32b576832efb9541ead77bc4d7afb21e1f56abcd", "4cf7d0cf99d849a2766a3acf32b576832efb9541ead77bc4d7afb21e1f56abcd", "SECRET:aws-signature"),
    ("&X-Amz-Security-Token=IQoJb3JpZ2luX2VjEF8MjwAQwplbiEv3Jf2kZwh4UfKLQZdItNbDfBSt3LR%2Fabc", "IQoJb3JpZ2luX2VjEF8MjwAQwplbiEv3Jf2kZwh4UfKLQZdItNbDfBSt3LR%2Fabc", "SECRET:aws-session-token"),
    ("&X-Goog-Signature=7d2a066be2c8ba567460c3b0d84cb1e0ef2bc728de00257f8570cebffcb7", "7d2a066be2c8ba567460c3b0d84cb1e0ef2bc728de00257f8570cebffcb7", "SECRET:gcs-signature"),
    ('"private_key_id": "7ec897c6aab7b5a4518252880316b8cc7741844b",', "7ec897c6aab7b5a4518252880316b8cc7741844b", "SECRET:private-key-id"),
    ("http://127.0.0.1:8888/lab?token=eb2eaab23852403a3dffcccc8eac714684308860464d702d", "eb2eaab23852403a3dffcccc8eac714684308860464d702d", "SECRET:token"),
    ("ray start --address=10.0.0.1:6379 --redis-password='5241590000000000'", "5241590000000000", "SECRET:password"),
    ("--hf_token=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", "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", "SECRET:hf-token"),
    ("SLACK_SIGNING_SECRET=8f14e45fceea167a5a36dedd4bea2543", "8f14e45fceea167a5a36dedd4bea2543", "SECRET:secret"),
    ("gcloud: ya29.a0No3Rw_bB618xiAx1vE7_8kaPX5yog5BGFsaeXPojUH6ufXDHu", "ya29.a0No3Rw_bB618xiAx1vE7_8kaPX5yog5BGFsaeXPojUH6ufXDHu", "SECRET:google-oauth-token"),
    ("  - name: DB_PASSWORD\n    value: Falcon2024!xyz", "Falcon2024!xyz", "SECRET:password"),
    ('[{"name": "API_SECRET", "value": "Zk9sR2xl-X3Rva2Vu"}]', "Zk9sR2xl-X3Rva2Vu", "SECRET:secret"),
    ('os.environ["DB_PASSWORD"] = "Tr0ub4dor-3xyz"', "Tr0ub4dor-3xyz", "SECRET:password"),
    ("SSHPASS=Sup3r-Secret-99 sshpass -e ssh gpu-node-07", "Sup3r-Secret-99", "SECRET:password"),
    # ~/.pgpass (PostgreSQL docs, "The Password File"): the password is the rest of the row.
    ("$ cat ~/.pgpass\npg01.cluster.acme.internal:5432:mlflow:tlindqvist:Zebra3879!V6X", "Zebra3879!V6X", "SECRET:password"),
    ("*:*:*:replicator:Kestrel-4471#mlf", "Kestrel-4471#mlf", "SECRET:password"),
    ("tls.key: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFcEFJQkFBS0NBUUVB", "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFcEFJQkFBS0NBUUVB", "SECRET:private-key"),
    ('DEBUG:urllib3.connectionpool:https://hooks.slack.com:443 "POST /services/T0FG4UQ7BH/B0WSJDA0LX/0w6kegUpl1hxZUL2KiSBAJeV HTTP/1.1" 404 9', "T0FG4UQ7BH/B0WSJDA0LX/0w6kegUpl1hxZUL2KiSBAJeV", "SECRET:slack-webhook"),
    ("CREDENTIALS\tASIAZGYSLBHOWWZXNNTQ\t2024-05-06T22:42:01Z\tRq8sn9dEp7+GrlXiB65E/6QOI5qgFRgM0J9edRKu\tIQoJb3JpZ2luX2VjEF8MjwAQwplbiEv", "Rq8sn9dEp7+GrlXiB65E/6QOI5qgFRgM0J9edRKu", "SECRET:aws-secret-key"),
    # AWS secret keys as a CLI flag, split over lines by a pretty-printer, and as `aws configure get` prints them.
    ("aws s3 ls --aws-secret-access-key Rq8sn9dEp7+GrlXiB65E/6QOI5qgFRgM0J9edRKy", "Rq8sn9dEp7+GrlXiB65E/6QOI5qgFRgM0J9edRKy", "SECRET:aws-secret-key"),
    ('    "SecretAccessKey":\n        "Rq8sn9dEp7+GrlXiB65E/6QOI5qgFRgM0J9edRKz",', "Rq8sn9dEp7+GrlXiB65E/6QOI5qgFRgM0J9edRKz", "SECRET:aws-secret-key"),
    ("aws_secret_access_key: >-\n  Rq8sn9dEp7+GrlXiB65E/6QOI5qgFRgM0J9edRKw", "Rq8sn9dEp7+GrlXiB65E/6QOI5qgFRgM0J9edRKw", "SECRET:aws-secret-key"),
    ("$ aws configure get aws_secret_access_key\nRq8sn9dEp7+GrlXiB65E/6QOI5qgFRgM0J9edRKv", "Rq8sn9dEp7+GrlXiB65E/6QOI5qgFRgM0J9edRKv", "SECRET:aws-secret-key"),
    # Found by a third blind corpus. A Teams incoming webhook as Teams issues it
    # (`https://{tenant}.webhook.office.com/webhookb2/{groupId}@{tenantId}/IncomingWebhook/{connectorId}/{webhookId}`,
    # newer ones with a `/V2...` signature); Cohere's positional client key as its quickstart
    # writes it; a Stripe test-mode secret key.
    (
        "requests.post('https://acme.webhook.office.com/webhookb2/3a1f2b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b@9e8d7c6b-5a49-4382-9170-6f5e4d3c2b1a/IncomingWebhook/7f3e2d1c0b9a48776655443322110ffe/0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d/V2aB3dE5fG7hJ9kL2mN4pQ6rS8tU0vW1xY3zA5bC7dE9', json=card)",
        "7f3e2d1c0b9a48776655443322110ffe",
        "SECRET:teams-webhook",
    ),
    ("notify: POST https://outlook.office.com/webhook/3a1f2b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b@9e8d7c6b-5a49-4382-9170-6f5e4d3c2b1a/IncomingWebhook/7f3e2d1c0b9a48776655443322110ffe/0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d -> 400", "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", "SECRET:teams-webhook"),
    ('co = cohere.Client("qXb8FHzAbO2jhfwqfL6meuJs17wYnqkIg7K0SxXP")', "qXb8FHzAbO2jhfwqfL6meuJs17wYnqkIg7K0SxXP", "SECRET:cohere-key"),
    ("stripe.api_key = 'sk_test_4eC39HqLyjWDarjtT1zdp7dc' # placeholder rotated", "sk_test_4eC39HqLyjWDarjtT1zdp7dc", "SECRET:stripe-key"),
    # env and printenv print values raw: a generated password's quote or backtick is part of it.
    ('DB_PASSWORD=pz"b7LGViYX=jU', 'pz"b7LGViYX=jU', "SECRET:password"),
    ("REDIS_PASSWORD=Kq`8zV,5yP'x", "Kq`8zV,5yP'x", "SECRET:password"),
    # `vault login`'s Key/Value table; GitLab runner tokens (new glrt- and legacy GR1348941,
    # also shortened in gitlab-runner's `runner=` field); a LangSmith key; a Databricks token.
    (
        "Key                  Value\n---                  -----\n"
        "token                hvs.CAESIJ8kLmN2pQ7rS9tU0vW1xY3zA5bC7dE9fG2hJ4kL6mN8GiQKHGh2cy5aQjNkRTVmRzdoSjlrTDJtTjRwUTZyUzg\n"
        "token_duration       768h",
        "hvs.CAESIJ8kLmN2pQ7rS9tU0vW1xY3zA5bC7dE9fG2hJ4kL6mN8GiQKHGh2cy5aQjNkRTVmRzdoSjlrTDJtTjRwUTZyUzg",
        "SECRET:vault-token",
    ),
    ("runner register --non-interactive --url https://gitlab.com/ glrt-t3_xY7kP2mQ9rT4vW8zB3nC --executor docker", "glrt-t3_xY7kP2mQ9rT4vW8zB3nC", "SECRET:gitlab-token"),
    ("Registering runner... succeeded                     runner=GR1348941RLoRqn-L", "GR1348941RLoRqn-L", "SECRET:gitlab-token"),
    ("langsmith.utils.LangSmithAuthError: Authentication failed for 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", "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", "SECRET:langsmith-key"),
    ("databricks configure: using token dapi3f2a1b9d8c7e4d6fa5b43c2d1e0f9a8b for profile DEFAULT", "dapi3f2a1b9d8c7e4d6fa5b43c2d1e0f9a8b", "SECRET:databricks-token"),
]

PERSONAL = [
    # curl -v names the account it sends Basic auth for.
    ("* Server auth using Basic with user 'lzhang'", "lzhang", "USER"),
    ("NCCL INFO Bootstrap : Using eth0:10.20.3.7<0>", "10.20.3.7", "IP"),
    ("connect to 192.168.1.20 port 22", "192.168.1.20", "IP"),
    ("localGid ::ffff:10.20.3.8 remoteGids::ffff:10.20.3.7 hca mlx5_0", "10.20.3.7", "IP"),
    ("Using [1]veth75fa783:fe80::14ad:64ff:fe64:b31e%veth75fa783<0>", "14ad:64ff:fe64:b31e", "IPV6"),
    ("Connect to 2001:db8:85a3::8a2e:370:7334<51817> failed", "2001:db8:85a3::8a2e:370:7334", "IPV6"),
    ("mlx5_0  1  0  fe80:0000:0000:0000:0e42:a1ff:fe9b:6d2c  v1  ens1f0", "fe80:0000:0000:0000:0e42:a1ff:fe9b:6d2c", "IPV6"),
    ("eth0  UP  fe80::8e1c:daff:fe3f:71a2/64", "fe80::8e1c:daff:fe3f:71a2", "IPV6"),
    ("peer 2001:db8:85a3:0:0:8a2e:370:7334 unreachable", "2001:db8:85a3:0:0:8a2e:370:7334", "IPV6"),
    ("open /home/müller/run/train.py failed", "müller", "USER"),
    ("Connecting to alice@10.0.0.12:22", "alice", "USER"),
    ("sbatch: error: Batch job submission failed for user bob (uid=10234)", "bob", "USER"),
    ("pam_unix(sshd:session): session opened for user carol(uid=1001) by (uid=0)", "carol", "USER"),
    ("Failed password for invalid user dave from 10.1.2.3 port 22 ssh2", "dave", "USER"),
    ("Accepted publickey for erin from 10.1.2.4 port 5555 ssh2", "erin", "USER"),
    ("Invalid user frank from 10.1.2.5 port 4444", "frank", "USER"),
    ("PGPASSWORD='x9!' psql -h db -U leo -d runs", "leo", "USER"),
    ("pg_dump -U mona mydb > dump.sql", "mona", "USER"),
    ("mysql -u nico -pS3cretPass experiments", "nico", "USER"),
    ("File \"C:\\Users\\Jürgen\\AppData\\Local\\x.py\", line 3", "Jürgen", "USER"),
    ("bind fe80:0:0:0:a00:27ff:fe4e:66a1%eth0 failed", "a00:27ff:fe4e:66a1", "IPV6"),
    ("curl: (6) Could not resolve host: artifacts.corp.acme.internal", "artifacts.corp.acme.internal", "HOST"),
    ("host      : gpu-a100-12.corp.example.com", "gpu-a100-12.corp.example.com", "HOST"),
    ("MASTER_ADDR=gpu-node-07 MASTER_PORT=29500", "gpu-node-07", "HOST"),
    ("gpu-node-07:48213:48213 [0] NCCL INFO Bootstrap", "gpu-node-07", "HOST"),
    ("[c10d] failed to connect to [gpu-node-08]:29500", "gpu-node-08", "HOST"),
    ("tried [localhost]:29500 then [trainbox7]:29501 and [rank3]:29502, [default0]:29503", "trainbox7", "HOST"),
    ("ip-10-0-1-23.ec2.internal", "ip-10-0-1-23.ec2.internal", "HOST"),
    ("contact alice.smith@acme-research.org for access", "alice.smith@acme-research.org", "EMAIL"),
    ('File "/home/jsmith/llm/train.py", line 3', "jsmith", "USER"),
    ("/Users/jsmith/Library/x", "jsmith", "USER"),
    ("/gpfs/alpine/scratch/jsmith/proj", "jsmith", "USER"),
    ("jsmith@gpu-node-07:~/llm$ ls", "jsmith", "USER"),
    ("wandb: Currently logged in as: jsmith (acme-llm). Use `wandb login --relogin`", "jsmith", "USER"),
    ("USER=jsmith", "jsmith", "USER"),
    ("/global/homes/j/jsmith/run and /pscratch/sd/j/jsmith/ckpt", "jsmith", "USER"),
    ("slurmstepd: error: *** JOB 881234 ON gpu-node-03 CANCELLED AT 2024-05-01T10:00:00 ***", "gpu-node-03", "HOST"),
    # MAC addresses, InfiniBand hardware addresses and GUIDs (ip a, ifconfig, ibstat, ibv_devinfo).
    ("    link/ether 0c:42:a1:9b:6d:2c brd ff:ff:ff:ff:ff:ff", "0c:42:a1:9b:6d:2c", "MAC"),
    ("    link/infiniband 80:00:00:48:fe:80:00:00:00:00:00:00:0c:42:a1:03:00:9b:6d:2c brd 00:ff:ff:ff:ff:12:40:1b:ff:ff:00:00:00:00:00:00:ff:ff:ff:ff", "80:00:00:48:fe:80:00:00:00:00:00:00:0c:42:a1:03:00:9b:6d:2c", "MAC"),
    ("    link/infiniband 00:00:10:49:fe:80:00:00:00:00:00:00:72:af:c8:85:0d:1a brd 00:ff:ff:ff:ff:12:40:1b:ff:ff:00:00:00:00:00:00:ff:ff:ff:ff", "72:af:c8:85:0d:1a", "MAC"),
    ("        ether 02:42:ac:11:00:02  txqueuelen 0  (Ethernet)", "02:42:ac:11:00:02", "MAC"),
    ('            "MacAddress": "02:42:ac:11:00:03",', "02:42:ac:11:00:03", "MAC"),
    ("\t\tPort GUID: 0x0c42a10300123456", "0x0c42a10300123456", "MAC"),
    ("\tNode GUID: 0x0c42a10300123450", "0x0c42a10300123450", "MAC"),
    ("\tSystem image GUID: 0x0c42a10300123451", "0x0c42a10300123451", "MAC"),
    ("\tnode_guid:\t\t\t0c42:a103:0012:3456", "0c42:a103:0012:3456", "MAC"),
    ("Physical Address. . . . . . . . . : 0C-42-A1-9B-6D-2C", "0C-42-A1-9B-6D-2C", "MAC"),
    # People's names: git, mail, GECOS, finger, pasted chat.
    ("Author: Hannah Fischer <hannah.fischer@acme-research.org>", "Hannah Fischer", "NAME"),
    ("    Signed-off-by: Jean-Luc van der Berg <jl@acme.io>", "Jean-Luc van der Berg", "NAME"),
    ("    Co-authored-by: Priya Natarajan <priya.n@acme.io>", "Priya Natarajan", "NAME"),
    ('From: "Tom O\'Brien" <tom@acme.io>', "Tom O'Brien", "NAME"),
    ("hfischer:x:1001:1001:Hannah Fischer,,,:/home/hfischer:/bin/bash", "Hannah Fischer", "NAME"),
    ("hfischer:x:1001:1001:Hannah Fischer,,,:/home/hfischer:/bin/bash", "hfischer", "USER"),
    # finger's office phone after the room (GECOS phone fields: test_names_mac_and_accounts_...).
    ("Office: Room 4.12, +49 89 1234 5678\tHome Phone: +49 89 8765 4321", "+49 89 1234 5678", "PHONE"),
    ("Login: mkowalski                       Name: Marta Kowalska", "Marta Kowalska", "NAME"),
    ("@Hannah Fischer can you check rank 3?", "Hannah Fischer", "NAME"),
    ("Hannah Fischer  10:42 AM", "Hannah Fischer", "NAME"),
    # IPv6 as uvicorn prints it, eight groups, zone ids.
    ('INFO:     2001:db8:85a3::8a2e:370:7334:51234 - "GET /health HTTP/1.1" 200 OK', "2001:db8:85a3::8a2e:370:7334", "IPV6"),
    ("inet6 2a02:8071:b84:c80:5e3f:1c9e:a1b2:c3d4/64 scope global dynamic", "2a02:8071:b84:c80:5e3f:1c9e:a1b2:c3d4", "IPV6"),
    ("inet6 2001:0db8:85a3:0000:0000:8a2e:0370:7334/64 scope global", "2001:0db8:85a3:0000:0000:8a2e:0370:7334", "IPV6"),
    ("connect to [2001:db8::17%ib0]:29500 failed", "2001:db8::17", "IPV6"),
    # Cloud account ids: the role or resource name stays.
    ('    "Account": "123456789012",', "123456789012", "ACCOUNT"),
    ('    "Arn": "arn:aws:iam::123456789012:role/SageMakerExecutionRole"', "123456789012", "ACCOUNT"),
    ("User: arn:aws:sts::210987654321:assumed-role/ml-train/hfischer is not authorized", "210987654321", "ACCOUNT"),
    ("User: arn:aws:sts::210987654321:assumed-role/ml-train/hfischer is not authorized", "hfischer", "USER"),
    ("docker pull 123456789012.dkr.ecr.us-east-1.amazonaws.com/llm:latest", "123456789012", "ACCOUNT"),
    ("/subscriptions/1b2c3d4e-aaaa-bbbb-cccc-1234567890ab/resourceGroups/rg-ml", "1b2c3d4e-aaaa-bbbb-cccc-1234567890ab", "ACCOUNT"),
    # User names: zsh prompts, the DNS form of a dotted name learned from an e-mail.
    ("hfischer@gpu-node-07 ~/llm % python train.py", "hfischer", "USER"),
    ("hannah.fischer@acme.io: pod train-hannah-fischer-0 in namespace hannah-fischer", "hannah-fischer", "USER"),
    # Hosts: Slurm hostlists, hostfiles, /etc/hosts, kubectl, cloud node names, CI runners.
    ("srun: error: Nodes gpu-node-[017-018] are still not ready", "gpu-node-[017-018]", "HOST"),
    ("   JobId=881234 NodeList=gpu-node-[01-04,07] BatchHost=gpu-node-01", "gpu-node-[01-04,07]", "HOST"),
    ("worker-1 slots=8", "worker-1", "HOST"),
    ("10.0.0.5   trainbox05.cluster.local trainbox05", "trainbox05", "HOST"),
    ("127.0.1.1\ttrainbox01", "trainbox01", "HOST"),
    ("train-0   1/1   Running   0   5m   10.244.1.7   aks-nodepool1-12345678-vmss000000   <none>   <none>", "aks-nodepool1-12345678-vmss000000", "HOST"),
    ("Successfully assigned ml/train-0 to gke-cluster-pool-1a2b3c4d-xyz1", "gke-cluster-pool-1a2b3c4d-xyz1", "HOST"),
    ("kubelet on ip-10-0-1-23 restarted", "ip-10-0-1-23", "HOST"),
    ("Subject: [Slurm] job 881234 failed on gpu-node-17", "gpu-node-17", "HOST"),
    ("Runner name: 'gpu-runner-07'", "gpu-runner-07", "HOST"),
    ("  on gpu-runner-01 abcd1234, system ID: s_0123456789ab", "gpu-runner-01", "HOST"),
    ("  host      : node-17.cluster.local", "node-17.cluster.local", "HOST"),
    # Where syslog, pdsh, DeepSpeed, Open MPI, ssh, ping and kubectl name the host.
    ("May  6 10:42:01 a100-03 kernel: NVRM: Xid (PCI:0000:1b:00): 79, pid=4242, GPU has fallen off the bus.", "a100-03", "HOST"),
    ("2024-05-06T10:42:01.123456+02:00 a100-03 kernel: [12345.678] NVRM: Xid (PCI:0000:1b:00): 79", "a100-03", "HOST"),
    ("trn1-07: [2024-05-01 10:00:00,123] [INFO] [launch.py:146:main] WORLD INFO DICT: {'trn1-07': [0, 1]}", "trn1-07", "HOST"),
    ("[INFO] [runner.py:568:main] cmd = pdsh -S -f 1024 -w trn1-07,trn1-08 export NCCL_DEBUG=INFO;", "trn1-08", "HOST"),
    ("[INFO] [multinode_runner.py:80:get_cmd] Using IP address of 10.0.0.1 for node trn1-09", "trn1-09", "HOST"),
    ("mpirun noticed that process rank 3 with PID 4242 on node a100-04 exited on signal 9 (Killed).", "a100-04", "HOST"),
    ("mpirun -np 16 -H a100-05:8,a100-06:8 python train.py", "a100-06", "HOST"),
    ("Connection to a100-07 closed.", "a100-07", "HOST"),
    ("PING a100-08 (10.0.0.8) 56(84) bytes of data.", "a100-08", "HOST"),
    ("  Labels:             kubernetes.io/hostname=a100-09", "a100-09", "HOST"),
    ("$ hostname\na100-10", "a100-10", "HOST"),
    ("            881234       gpu pretrain hfischer  R    1:02:03      2 a100-[11-12]", "a100-[11-12]", "HOST"),
    # Account names in id, scontrol, sudo, ls -l, squeue and ps.
    ("uid=1001(mkowalski) gid=1001(mkowalski) groups=1001(mkowalski),27(sudo)", "mkowalski", "USER"),
    ("   UserId=mkowalski(1001) GroupId=mkowalski(1001) MCS_label=N/A", "mkowalski", "USER"),
    ("Jun 10 10:00:00 login01 sudo: mkowalski : TTY=pts/0 ; PWD=/tmp ; USER=root ; COMMAND=/bin/ls", "mkowalski", "USER"),
    ("-rw-r--r-- 1 mkowalski mkowalski 1234 May  6 10:42 train.py", "mkowalski", "USER"),
    ("             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)\n            881234       gpu pretrain mkowalski  R    1:02:03      2 a100-[11-12]", "mkowalski", "USER"),
    ("USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND\nmkowalski    4242  99.0  2.1 123456 7890 ?        Rl   10:00  12:34 python train.py", "mkowalski", "USER"),
    ("GIT_AUTHOR_NAME=Marta Kowalska", "Marta Kowalska", "NAME"),
    ('Reply-To: "Kowalska, Marta" <marta@acme.io>', "Kowalska, Marta", "NAME"),
    ("salloc: Nodes a100-13,a100-14 are ready for job", "a100-14", "HOST"),
    ('git config --global user.name "Marta Kowalska"', "Marta Kowalska", "NAME"),
    ("s3://sagemaker-us-east-1-123456789012/output/model.tar.gz", "123456789012", "ACCOUNT"),
    ('Ca\t1 "H-0c42a10300123456"\t\t# "a100-03 mlx5_0"', "0c42a10300123456", "MAC"),
    ("vf 0 link/infiniband brd 00:ff, node guid 0c:42:a1:03:00:12:34:56, port guid 0c:42:a1:03:00:12:34:57", "0c:42:a1:03:00:12:34:57", "MAC"),
    ("$ ibstat -p\n0x0c42a10300123458", "0c42a10300123458", "MAC"),
    ("GET /v1/projects/p/serviceAccounts/trainer%40proj-1.iam.gserviceaccount.com:signBlob", "trainer%40proj-1.iam.gserviceaccount.com", "EMAIL"),
    # git blame (default and `-f`), git shortlog (default and `-sn`), as git 2.x prints them.
    ("^025441e (Hannah Fischer 2026-12-04 03:05:28 +0000 1) import torch", "Hannah Fischer", "NAME"),
    ("6d316bd2 train.py (Jonas Weber    2024-01-15 09:22:45 +0100 101)     x = 1", "Jonas Weber", "NAME"),
    ("Jonas Weber (2):\n      Fix NCCL timeout\n      Add y\n", "Jonas Weber", "NAME"),
    ("     2\tJonas Weber\n     1\tHannah Fischer", "Hannah Fischer", "NAME"),
    ("     2\tJonas Weber <jonas@acme.io>", "Jonas Weber", "NAME"),
    # Found by an independent log generator: sacct's ruled table, a bare node in a URL, GPU-named
    # nodes, `az account show`, an unencoded `#` in a URL password.
    ("       JobID    JobName      User      State ExitCode        NodeList \n------------ ---------- --------- ---------- -------- --------------- \n     9923491   pretrain  mkowalsk     FAILED      1:0   a100-[07-08] \n9923491.bat+      batch                FAILED      1:0        a100-07 ", "mkowalsk", "USER"),
    ("[I 2024-05-06 10:42:01.124 ServerApp] http://trn-052:8888/lab?token=3f2a", "trn-052", "HOST"),
    ('{"level": "error", "error": "CUDA error: an illegal memory access was encountered", "node": "h100-168", "gpu": 3}', "h100-168", "HOST"),
    ("srun: error: hpc-gpu-072: task 9: Out Of Memory", "hpc-gpu-072", "HOST"),
    ("I black listed the following worker nodes: `gpu-1-7` and compute-0-12", "gpu-1-7", "HOST"),
    ('  "id": "1b2c3d4e-aaaa-bbbb-cccc-1234567890ab",\n  "isDefault": true,\n  "tenantId": "2c3d4e5f-aaaa-bbbb-cccc-1234567890ab",', "1b2c3d4e-aaaa-bbbb-cccc-1234567890ab", "ACCOUNT"),
    ("[sudo] password for hfischer: ", "hfischer", "USER"),
    # who, last, top, gpustat, quota, an LDAP DN, Slurm's and sudo's -u.
    ("hfischer pts/0        2024-05-06 10:42 (10.1.2.3)", "hfischer", "USER"),
    ("mkowal   pts/3        10.1.2.4         Mon May  6 10:42   still logged in", "mkowal", "USER"),
    ("    PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND\n   4242 jweber    20   0   98.2g  12.1g   1.2g R 100.0   4.8  12:34.56 python", "jweber", "USER"),
    ("[0] NVIDIA A100-SXM4-80GB | 65°C, 100 % | 70123 / 81920 MB | pnowak(70120M) tsato(100M)", "tsato", "USER"),
    ("Disk quotas for user lsato (uid 1001):", "lsato", "USER"),
    ("uid=rkarimi,ou=people,dc=acme,dc=io", "rkarimi", "USER"),
    ("$ squeue -u ahaddad --format=%i", "ahaddad", "USER"),
    ("$ sprio -u okafor2 -l", "okafor2", "USER"),
    ("$ sudo -u bvolkov python x.py", "bvolkov", "USER"),
    ("$ aws sts assume-role --role-arn arn:aws:iam::123456789012:role/MLTrainingRole --role-session-name jwinters", "jwinters", "USER"),
    # Shapes from NCCL and Kubernetes issue threads: c10d's IPv6 attempt, uname -a.
    ("[I socket.cpp:622] [c10d - debug] The client socket will attempt to connect to an IPv6 address of (train-4509-master-0, 23456).", "train-4509-master-0", "HOST"),
    ("Linux kubernetes-minion-group-4vzp 4.4.86+ #1 SMP Thu Dec 7 20:11:11 PST 2017 x86_64 GNU/Linux", "kubernetes-minion-group-4vzp", "HOST"),
    ("Host gpu-cluster\n    HostName login01.hpc.acme.io\n    User hfischer\n    IdentityFile ~/.ssh/id_ed25519", "hfischer", "USER"),
    ("       JobID    JobName      User      State        NodeList \n------------ ---------- --------- ---------- --------------- \n     4788690   pretrain  mkowalsk     FAILED hpc-gpu-[022-023]", "mkowalsk", "USER"),
    # The same table re-spaced on its way (a chat, a hand edit): cells read by whitespace.
    ("JobID           JobName      User      State ExitCode        NodeList\n------------ ---------- --------- ---------- -------- ---------------\n4812345        train.sh jvanberg   OUT_OF_ME+    0:125   kraken-train8", "jvanberg", "USER"),
    # One-word chat mentions in a pasted Slack thread.
    ("@hfischer can you check the NCCL error?", "hfischer", "USER"),
    ("cc @mkowalski @bob.smith thanks!", "bob.smith", "USER"),
    # Found by a third blind corpus: board serials as nvidia-smi -q, its XML, fruid-util and
    # FreeIPMI print them; labelled phone numbers in a pasted mail signature.
    ("    Serial Number                         : 1321020023456", "1321020023456", "SERIAL"),
    ("\t\t<serial>1321020023457</serial>", "1321020023457", "SERIAL"),
    ("Board Serial              : WN1502400PN1A", "WN1502400PN1A", "SERIAL"),
    ("  FRU Board Serial Number: BQWF80100215", "BQWF80100215", "SERIAL"),
    ('{"log":"    Serial Number                         : 1321020023458\\n","stream":"stdout"}', "1321020023458", "SERIAL"),
    ("Mobile: +49 151 2345 6789", "+49 151 2345 6789", "PHONE"),
    ("Tel.: +44 20 7946 0958 | Fax: +44 20 7946 0959", "+44 20 7946 0958", "PHONE"),
    ("Phone: (415) 555-0132", "(415) 555-0132", "PHONE"),
    # A record quoted by a data loader's error: the SSA's advertising example and a network's
    # published test card number.
    ("ValueError: could not convert string to float: '078-05-1120'", "078-05-1120", "SSN"),
    # IBANs, compact and grouped in fours (the ECBS examples), in a record a parser quotes.
    ("KeyError: 'GB82WEST12345698765432' not in payees", "GB82WEST12345698765432", "IBAN"),
    ("IBAN: IE29 AIBK 9311 5212 3456 78", "IE29 AIBK 9311 5212 3456 78", "IBAN"),
    # A private git host's scp-like remote (`git remote -v`) names the owner's login.
    ("origin\tgit@git.kestrel.net:hfischer/llm-train.git (fetch)", "hfischer", "USER"),
    # The owner in a private git host's HTTPS URL and in pip's git+ssh requirement.
    ("fatal: Authentication failed for 'https://gitlab.kestrel.de/hfischer/llm-train.git/'", "hfischer", "USER"),
    ("$ pip install git+ssh://git@git.kestrel.net/hfischer/tokenizers-fork.git@main", "hfischer", "USER"),
    # A private registry in kubelet's events and in a docker command's image argument.
    ('  Normal   Pulling    2m (x4 over 4m)    kubelet  Pulling image "harbor.kestrel.de/ml/trainer:v3"', "harbor.kestrel.de", "HOST"),
    ("$ docker run --rm --gpus all --ipc=host kestrel.ai:5000/ml/vllm:0.6.3 --model /ckpt", "kestrel.ai", "HOST"),
    # The registry `docker login` logs in to, a two-label domain under a country suffix.
    ("$ docker login -u hfischer --password-stdin registry.kestrel.de", "registry.kestrel.de", "HOST"),
    # urllib3's debug log names the host it connects to before any URL does.
    ("DEBUG:urllib3.connectionpool:Starting new HTTPS connection (1): inference.kestrel.nl:443", "inference.kestrel.nl", "HOST"),
    # Comet's run banner: the workspace is the user's login unless a team was made.
    ("COMET INFO: Experiment is live on comet.com https://www.comet.com/hfischer/llm-finetune/4dfd23cdb8888454a5bc7081bd8681e0", "hfischer", "USER"),
    # An Irish name in a git trailer (a one-letter word of the family name, accented capitals).
    ("Reviewed-by: Éanna Ó Ceallaigh", "Éanna Ó Ceallaigh", "NAME"),
    # NCCL's socket interface with a global address written with all eight groups.
    ("gn56:3321:3321 [0] NCCL INFO NET/Socket : Using [0]eth0:2a05:d014:9c71:6be9:f210:9231:52a7:19d1<0>", "2a05:d014:9c71:6be9:f210:9231:52a7:19d1", "IPV6"),
    ("KeyError: 'amount' in row {'name': 'x', 'card': '4111 1111 1111 1111'}", "4111 1111 1111 1111", "CARD"),
    ("telephoneNumber: +49 30 1234 5678", "+49 30 1234 5678", "PHONE"),
    # CI identities as GitHub Actions and GitLab CI export them, git's HTTPS push refusal,
    # Windows' COMPUTERNAME.
    ("GITHUB_ACTOR=hfischer-acme", "hfischer-acme", "USER"),
    ("remote: Permission to acme/llm-finetune.git denied to jweber.", "jweber", "USER"),
    ("GITLAB_USER_NAME=Hannah Fischer", "Hannah Fischer", "NAME"),
    ("RUNNER_NAME=gpu-runner-a3onl", "gpu-runner-a3onl", "HOST"),
    ("CI_RUNNER_DESCRIPTION=gpu-runner-07", "gpu-runner-07", "HOST"),
    ("COMPUTERNAME=DESKTOP-XJPAJ5L", "DESKTOP-XJPAJ5L", "HOST"),
    # `whoami` / `id -un` / `echo $USER` and the account name alone on the next line.
    ("$ whoami\nhfischer\n$ nvidia-smi", "hfischer", "USER"),
    ("[hfischer@login01 ~]$ echo $USER\nhfischer", "hfischer", "USER"),
    ("$ huggingface-cli whoami\nhannahfischer\norgs:  acme-ai", "hannahfischer", "USER"),
    # GitLab CI's predefined login, echoed in a job script: the value alone on the next line.
    ("$ echo $GITLAB_USER_LOGIN\nlukasli", "lukasli", "USER"),
    # OpenSSH's `ssh -v` (sshconnect.c: debug("Authenticating to %s:%d as '%s'", ...)).
    ("debug1: Authenticating to gpu-node-017.cluster.acme.internal:22 as 'tpetrov'", "tpetrov", "USER"),
    # An IRC log pasted into a thread, as ZNC's log module writes it: `[HH:MM:SS] <nick> text`.
    ("[10:44:01] <aiko.haddad> still failing on the RoCE nodes", "aiko.haddad", "USER"),
    # OpenSSH's refusal names the account at the machine (sshconnect2.c): a user, not an e-mail.
    ("tpetrov@a100-028.corp.initech.local: Permission denied (publickey,gssapi-keyex,gssapi-with-mic).", "tpetrov", "USER"),
    # GitHub CLI's `gh auth status` (pkg/cmd/auth/status: "Logged in to %s account %s (%s)").
    ("  ✓ Logged in to github.com account priyabe (keyring)", "priyabe", "USER"),
    # GitHub's merge commit subject names the head repository's owner.
    ("    Merge pull request #173 from priyabe/fix-nccl-timeout", "priyabe", "USER"),
    # A PostgreSQL password file row: hostname:port:database:username:password.
    ("$ cat ~/.pgpass\npg01.cluster.acme.internal:5432:mlflow:tlindqvist:Zebra3879!V6X", "tlindqvist", "USER"),
    # A host under the domain of a person's address is the organisation's, whatever its suffix.
    ("From: Hannah Fischer <hannah.fischer@initech.de>\nReceived: from mx1.initech.de (mx1.initech.de [198.51.100.69])", "mx1.initech.de", "HOST"),
    # Microsoft Graph's user object as `az ad signed-in-user show` prints it; OIDC claims.
    ('  "givenName": "Marco",', "Marco", "NAME"),
    ('  "surname": "Rossi",', "Rossi", "NAME"),
    ('{"sub": "248289761001", "given_name": "Jane", "family_name": "Doe"}', "Doe", "NAME"),
    # Jenkins on an agent (`Building remotely on <node> (<labels>) in workspace <dir>`), and
    # kubectl describe pod's `Node:` with its address masked before the host is read.
    ("Building remotely on gpu-agent-07 (linux gpu) in workspace /var/lib/jenkins/workspace/train", "gpu-agent-07", "HOST"),
    ("Node:             a100-017/10.8.1.27", "a100-017", "HOST"),
    # Owner keys of a JSON log record or a tracker hold a login, role keys a person's name.
    ('{"level": "error", "msg": "checkpoint upload failed", "owner": "niamhba", "job_id": "55113"}', "niamhba", "USER"),
    ("created_by: tpetrov42", "tpetrov42", "USER"),
    # A Kubernetes annotation spells the key with dashes (`kubectl describe pod`'s Annotations).
    ("Annotations:  submitted-by: rsingh7\n              kubectl.kubernetes.io/restartedAt: 2026-12-01T10:00:00Z", "rsingh7", "USER"),
    ("  oncall: Niamh Adeyemi", "Niamh Adeyemi", "NAME"),
    ("Assignee: Jonas Okafor", "Jonas Okafor", "NAME"),
    # GitLab's pipeline header (`Pipeline #48213 triggered ... by <name>`).
    ("Pipeline #48213 triggered by Elif Quinn", "Elif Quinn", "NAME"),
    # Personal branches (`git branch -a`, git's checkout message, a CI branch variable),
    # personal namespaces and a container named for its user in `docker ps`.
    ("  remotes/origin/hfischer/fix-oom", "hfischer", "USER"),
    ("Switched to a new branch 'aiko.haddad/nccl-timeout'", "aiko.haddad", "USER"),
    ("CI_COMMIT_REF_NAME=lundgren20/bf16-loss", "lundgren20", "USER"),
    ("$ kubectl get pods -n user-tpetrov -o wide", "tpetrov", "USER"),
    ("Namespace:        kowalski39", "kowalski39", "USER"),
    # A login seen only in a stage-of-work namespace (`-dev`, `-prod`, `-sandbox`), its DNS form
    # `hannah-fischer`, kubectl's NAMESPACE column, or its pods' names (a Deployment's pod, a
    # PyTorchJob's worker, the scheduler's event, kubectl's NotFound).
    ("$ kubectl get pods -n jdoe-dev", "jdoe", "USER"),
    ("$ kubectl logs --namespace=tpetrov-prod trainer-0", "tpetrov", "USER"),
    ("namespace: hannah-fischer", "hannah-fischer", "USER"),
    ("kubectl config set-context --current --namespace=priya-sandbox", "priya", "USER"),
    ("namespace/wojciech-dev created", "wojciech", "USER"),
    ("$ helm status llm-serve -n ravi-sharma\nNAME: llm-serve\nNAMESPACE: ravi-sharma\nSTATUS: failed", "ravi-sharma", "USER"),
    (
        "NAMESPACE     NAME                          READY   STATUS      RESTARTS   AGE\n"
        "kube-system   coredns-5d78c9869d-abcde      1/1     Running     0          3d\n"
        "hfischer-dev  llama-sft-6b8d9f-zz9qp        0/1     OOMKilled   2          5m",
        "hfischer",
        "USER",
    ),
    ("alice-train-7f9c8d-x2k4q      0/1     CrashLoopBackOff   5 (2m ago)   10m", "alice", "USER"),
    # Who a CI run names in parentheses, GitHub Actions' `github` context, a login in small
    # letters after `triggered by`.
    ("Pipeline #4821 triggered by (jdoe)", "jdoe", "USER"),
    ("Workflow run 77 failed (by @tpetrov-ml)", "tpetrov-ml", "USER"),
    ("Hannah Fischer (@hfischer) pushed to main", "hfischer", "USER"),
    ('    "triggering_actor": "jdoe",', "jdoe", "USER"),
    ('  "actor": "tpetrov",', "tpetrov", "USER"),
    ("github.actor: jsmith", "jsmith", "USER"),
    ("This workflow was triggered by jdoe on push to main", "jdoe", "USER"),
    # A numbered machine a mail's subject names, or a sentence says is in trouble.
    ("Subject: Re: kraken-ml7 keeps dropping out of the ring", "kraken-ml7", "HOST"),
    ("Subject: [ops] NCCL timeouts on kraken-ml7", "kraken-ml7", "HOST"),
    ("fyi gpu-a100-03 is down again, draining it", "gpu-a100-03", "HOST"),
    ("$ kubectl logs -f hfischer-bert-ft-worker-0", "hfischer", "USER"),
    ("pod/tpetrov-train-7f9c8d-x2k4q created", "tpetrov", "USER"),
    ("  Normal  Scheduled  3m  default-scheduler  Successfully assigned ml-jobs/jsmith-eval-0 to a100-017", "jsmith", "USER"),
    ('Error from server (NotFound): pods "jsmith-eval-0" not found', "jsmith", "USER"),
    (
        '3fc208e384b3   nvcr.io/nvidia/pytorch:24.05-py3   "/opt/nvidia/nvidia_…"   2 hours ago   Up 2 hours   '
        "0.0.0.0:8888->8888/tcp   lucia_fischer_train",
        "lucia_fischer",
        "USER",
    ),
    # A number someone asks to be called on in a mail or chat, with its country or area code.
    ("Can you call me on +44 20 7946 0958 after standup?", "+44 20 7946 0958", "PHONE"),
    ("or reach me at (415) 555-0132", "(415) 555-0132", "PHONE"),
    # A signature's contact line: the address, a bar, the number with its country code.
    ("lukas.brandt@acme-research.org | +49 89 1234 5678", "+49 89 1234 5678", "PHONE"),
    # Teams copied with the date; a git trailer without an address; GitHub's PR page pasted.
    ("[12/4/2026 10:41 AM] Brandt, Lukas:", "Brandt, Lukas", "NAME"),
    ("Reviewed-by: Omar Haddad", "Omar Haddad", "NAME"),
    ("kanerva commented 3 hours ago", "kanerva", "USER"),
    ("@rbanerjee commented on Dec 4, 2026", "rbanerjee", "USER"),
    ("rbanerjee requested changes on this pull request", "rbanerjee", "USER"),
    # Another user's home as bash expands it, chown's new owner, a crontab's owner, `fuser -v`.
    ("cp ~kmensah/ckpt/model.pt .", "kmensah", "USER"),
    ("$ chown -R iberg:users /data/ckpt", "iberg", "USER"),
    ("crontab: installing new crontab /var/spool/cron/crontabs/lfischer", "lfischer", "USER"),
    ("/dev/nvidia0:        gquinn     48211 F...m python", "gquinn", "USER"),
    # A numbered machine named in prose after what is done to it.
    ("node gn-192 is down again since the ECC errors", "gn-192", "HOST"),
    ("can someone ssh into hpc-n0412 and check dmesg?", "hpc-n0412", "HOST"),
    ("drained cn-073, will reboot it tonight", "cn-073", "HOST"),
    ("Node cn-0731 is drained", "cn-0731", "HOST"),
    ("Rebooted gn-118 after Xid 79", "gn-118", "HOST"),
    ("Draining hpc-n0412 for repairs", "hpc-n0412", "HOST"),
    # JupyterHub's KubeSpawner names a user's server pod after the login.
    ('Error from server (Forbidden): pods "jupyter-ohaddad" is forbidden: User "system:serviceaccount:jhub:hub" cannot get resource "pods"', "ohaddad", "USER"),
    # Names in Greek and Cyrillic under role keys.
    ("owner: Νίκος Παπαδόπουλος", "Παπαδόπουλος", "NAME"),
    ("assignee: Дмитрий Иванов", "Иванов", "NAME"),
    # `hf auth whoami` labels the login; it is learned for the repository it uploads to.
    ("$ hf auth whoami\nuser:  tvoronova\norgs:  acme-ml\n$ hf upload tvoronova/llama-lora ./out", "tvoronova", "USER"),
    # A person's directory in a collection right after another anchor, or a few groups down.
    ("Saving to /fsx/users/jean_dubois/asr/ckpt", "jean_dubois", "USER"),
    ("rsync -a /scratch/users/qlindholm/runs/ .", "qlindholm", "USER"),
    ("Saving checkpoint to /lustre/orgs/acme/vision/asr/anapaula.desouza/runs/step_100", "anapaula.desouza", "USER"),
    ("OSError: /nfs/nlp/members/pr2389/llm/ckpt: Disk quota exceeded", "pr2389", "USER"),
    ("File \"/gpfs/projects/llm/alignment/tcarlsson/experiments/dpo/train.py\", line 12", "tcarlsson", "USER"),
    # An Alliance (Compute Canada) allocation is named for its principal investigator.
    ("#SBATCH --account=def-kfarouk", "kfarouk", "USER"),
    ("7712034       llama-sft  hfischer  rrg-tnakamura_gpu  OUT_OF_ME+    0:125", "tnakamura", "USER"),
    # International phone numbers standing as values in alert configs.
    ('      to: "+44 20 7946 0958"', "+44 20 7946 0958", "PHONE"),
    ('recipients: ["+14155550132"]', "+14155550132", "PHONE"),
    ("  - +61 491 570 156", "+61 491 570 156", "PHONE"),
    # An employee's or a student's number in a directory named for it or under its key.
    ("export OUT=/work/projects/emp_E345608/outputs", "E345608", "USER"),
    ("student_id: s2145678", "s2145678", "USER"),
    # wandb with no team entity ends its sentence after the login: the full stop is not learned.
    ("wandb: Currently logged in as: tvoronova. Use `wandb login --relogin` to force relogin\nPushing to tvoronova/llama-ft", "tvoronova", "USER"),
]

# Lines that carry no secret or personal data: masking must return them byte for byte.
DECOYS = [
    # An organisation's tree of teams and projects, and fairseq's model directories by size.
    "Saving checkpoint to /lustre/orgs/acme-ml/nlp/llm-sft/runs/step_100",
    "Loading /data/roberta.large/model.pt and /data/models/bart.base/dict.txt",
    # Signed counts and offsets are no phone numbers; a compiler flag is no allocation.
    '"count": +123456789, "offset": +3600, "tz": "+05:30", "loss": +12.345678',
    "CFLAGS=-DNDEBUG -Wno-undef-prefix",
    # A distillation run's student and a temporary directory carry no person's number.
    "student_model_12345 student-loss: 0.123 at /tmp/temp_123456",
    # Source that reads a key from the environment names the variable, holds no key.
    '    client = Mistral(api_key=os.environ.get("MISTRAL_API_KEY"))',
    # A shared Hub cache under /scratch is no one's home.
    'export HF_HOME="/scratch/hf-cache"',
    # A Hub revision quoted in JSON beside a W&B setting is a commit, not a W&B key.
    '{"report_to": ["wandb"], "revision": "9c1d0e7fa2b34c5d6e7f8091a2b3c4d5e6f70819"}',
    # Inference APIs a run calls are public services.
    'DEBUG:urllib3.connectionpool:https://api.together.xyz:443 "POST /v1/completions HTTP/11" 401 87',
    "httpx: HTTP Request: POST https://api.cohere.com/v2/chat \"HTTP/1.1 429 Too Many Requests\"",
    # A rank label and localhost in the `[host]:port` position name no machine.
    "The client socket has failed to connect to [localhost]:29500, [rank3]:29502 and [default0]:29503",
    # A bootstrap token's shape inside longer dotted names.
    "artifact zq81abcdef.0123456789abcdef and layer.k7m2qa.0d9x3v8w1b5n4c6z stay",
    # The prose words inside longer words: no machine is named after them.
    "the x-node ab12 link and sub_node gp99, pre-drain cx-917 and unreboot gz-655",
    # A group (not a login) owns the repository on a public host; an IBAN-shaped id whose check fails.
    "upstream\tgit@github.com:pytorch/pytorch.git (fetch)",
    # Public registries and an image path whose first part is a file, not a registry.
    '  Normal   Pulling    12s   kubelet  Pulling image "registry.k8s.io/pause:3.9"',
    "$ docker run --gpus all nvcr.io/nvidia/pytorch:24.07-py3 python train.py",
    "Image: model.safetensors/shard-0",
    "run id DE12ABCD12345678901234 resumed",
    # Four colons on a line without a .pgpass word, the default port or a wildcard: not a row.
    "ERROR:1:dataloader:worker:exited",
    "git@github.com: Permission denied (publickey).",
    # base64 of 16 float32 values (88 characters ending `==`, entropy above 4.5): a tensor, not
    # an Azure storage key.
    '"init_scale": {"dtype": "float32", "shape": [16], "data": "aEqaPLvQ5LyVul68L9DyO8OEprzuDr26XeBqO9QqiLwCeda87iF+O+m7ojzBAFS8M6zauz3QBj0SIze8lnoovA=="}',
    "NCCL_IB_GID_INDEX=3 NCCL_SOCKET_IFNAME=eth0 NCCL_IB_HCA=mlx5_0 NCCL_DEBUG=INFO",
    "TOKENIZERS_PARALLELISM=false HF_HUB_ENABLE_HF_TRANSFER=1 pip install hf_transfer",
    "model = AutoModel.from_pretrained(name, use_auth_token=True)",
    "TrainingArguments(hub_token=<HUB_TOKEN>, push_to_hub=False, report_to=['wandb'])",
    '{"pad_token_id": 0, "eos_token": "</s>", "bos_token": "<s>", "max_new_tokens": 128}',
    "pad_token=[PAD] unk_token=<unk> additional_special_tokens=['<|im_start|>']",
    "key_states = self.k_proj(hidden_states); key_states.shape torch.Size([8, 32, 4096, 128])",
    "loading file tokenizer_config.json from cache",
    "HEAD is now at 9f2c4e6a8b0d1f3e5a7c9b2d4f6e8a0c1b3d5f7e fix loss scaling",
    "snapshots/4f1c3a5b7d9e2f4a6c8b0d1e3f5a7c9b2d4e6f8a/model.safetensors",
    "nvcr.io/nvidia/pytorch@sha256:5d2f8a1c3e5b7d9f2a4c6e8b0d1f3a5c7e9b2d4f6a8c0e1f3a5b7d9c2e4f6a8b",
    "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-2b7f3c1e-9a4d-4e8b-b1c2-3d4e5f6a7b8c)",
    "ncclCommInitRank comm 0x55d4c1a3b2f0 rank 0 nranks 16 cudaDev 0 busId 1b000 commId 0x8a5e0c1f2d3b4a69 - Init START",
    "nvidia-cudnn-cu12==8.9.2.26 nvidia-nccl-cu12==2.18.1",
    "nvidia-cublas-cu12        12.1.3.1",
    "libcudnn8=8.9.2.26-1+cuda12.1 libcudnn.so.8.9.2.26 CUDA Version: 12.1.3.1",
    "|   0  NVIDIA H100 80GB HBM3  On  | 00000000:1B:00.0 Off | PCI 0000:1b:00.0",
    "exitcode  : -9 (pid: 4242) Signal 9 (SIGKILL) received by PID 4242",
    "[rank3]:[E501 10:17:42 ProcessGroupNCCL.cpp:1316] Watchdog caught collective operation timeout",
    "server listening on 0.0.0.0:8000 and 127.0.0.1:29500, [::1]:8080, docker 172.17.0.1, localhost:6006",
    "Downloading https://huggingface.co/meta-llama/Llama-2-7b-hf/resolve/main/config.json from cdn-lfs.huggingface.co",
    "wandb: syncing to https://api.wandb.ai and https://pypi.org/simple, s3.us-west-2.amazonaws.com",
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: train.py FAILED",
    "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 79.15 GiB total capacity)",
    "ValueError: Input contains token: 50256 which exceeds vocab_size 50000",
    "std::vector<at::Tensor> c10d::ProcessGroupNCCL::allreduce(std::vector<at::Tensor>&) x[1::2]",
    "inet addr netmask 255.255.255.0 scope global; mask 255.255.240.0",
    "WARNING! Using --password via the CLI is insecure. Use --password-stdin.",
    "Login Succeeded",
    "host: unreachable, please check the network",
    "git@github.com:acme/llm.git",
    "    token = os.environ['HF_TOKEN']",
    "    api_key=args.openai_api_key,",
    "GOOGLE_APPLICATION_CREDENTIALS=/opt/keys/sa.json",
    "--discovery-token-ca-cert-hash sha256:1f3c5e7a9b2d4f6a8c0e1f3a5b7d9e2c4f6a8b0d2e4f6a8c1e3f5a7b9d2c4e6f",
    "wandb: ERROR api_key not configured (no-tty). call wandb.login(key=[your_api_key])",
    "Token is valid (permission: write). Your token has been saved in your configured git credential helpers (store).",
    "failed to fetch anonymous token: unexpected status: 401 Unauthorized",
    "[default1]:2023-10-02 08:01:13,553 INFO rank 1 using cuda:0",
    "  - name: NCCL_DEBUG\n    value: INFO",
    "2024-05-01T10:17:42.123Z step=1200 loss=2.345 lr=1.9e-05 grad_norm=0.98 tokens_per_sec=12345.6",
    "port WWN 20:00:00:25:b5:00:00:0f, stages 1:2:3:4:5:6:7:8, at 12:34:56:01",
    "hooks for user defined functions only; pip install torch@1.13.1",
    "psql -U postgres -d runs; mysql -u root -p",
    # Look-alikes of the new kinds.
    "    link/ether brd ff:ff:ff:ff:ff:ff, inet 10.x brd; Bcast:10.1.2.255",
    "Uvicorn running on http://[::]:8000 (Press CTRL+C to quit)",
    "IAM role names stay: arn:aws:iam::aws:policy/AmazonS3ReadOnlyAccess, arn:aws:s3:::my-bucket/key",
    "training.kubeflow.org/replica-index=0 training.kubeflow.org/job-role=master",
    "x = layers[3]; hidden[0]; torch.Size([8, 32, 4096]); node_rank=0 --nnodes=2 node2vec",
    "Author: GitHub <noreply@github.com>",
    "Process Group: 3 started at step 1200",
    '  "Credentials": {',
    "PWD=/tmp OLDPWD=/opt/app",
    "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\nUSER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND\nroot           1  0.0  0.1 167744 11520 ?        Ss   10:00   0:02 /sbin/init",
    # base64 of 16 float32 values: 88 characters ending `==`, like an Azure storage key.
    "weights: AAAAAAAAAD8AAIA/AADAPwAAAEAAACBAAABAQAAAYEAAAIBAAACQQAAAoEAAALBAAADAQAAA0EAAAOBAAADwQA==",
    "sbatch --account=proj-llm-42 --partition=gpu train.sh; gcloud config set project ml-research-123456",
    "  WANDB_API_KEY:  <set to the key 'api-key' in secret 'wandb'>  Optional: false",
    # A Stripe publishable key is public: only secret (`sk_`) and restricted (`rk_`) keys go.
    "Stripe.js publishable key pk_test_TYooMQauvdEDq54NiTphI7jx",
    # Serials that name no board; an extension, a notebook cell and a CPU model beside the
    # phone labels.
    "    Serial Number                         : N/A\nBoard Serial              : 0\nSerial Number: To Be Filled By O.E.M.",
    "call ext. 4321; Cell In[3], line 12; Intel(R) Xeon(R) Platinum 8480+",
    # A deploy key, a GitHub app and a runner description in prose name no account or host.
    "ERROR: Permission to acme/llm.git denied to deploy key",
    "GITHUB_TRIGGERING_ACTOR=dependabot[bot] CI_RUNNER_DESCRIPTION=shared",
    # ssh -v names the server's key algorithm under a generic `key:`; the fingerprint is public.
    "debug1: Server host key: ssh-ed25519 SHA256:G3ehyDc/drm2160n6mq+BBAnJWjTmFxwex60gzIe45c",
    "debug1: Server host key: ecdsa-sha2-nistp256 SHA256:BsrjM6a1t5j4RnnnOeYkBWtP+wucFebVmdzqrkLY3AA",
    # Vault-, GitLab- and Databricks-like words that are not tokens; root needs no masking.
    "loss.hvs.weight torch.hvb.mean rapidapi dapi1234 GR1348941 registration failed",
    "$ whoami\nroot",
    # A team entity names nobody; decorators, doc tags, Slack broadcasts and npm scopes are no mention.
    'WANDB_ENTITY=acme-research WANDB_PROJECT=llama-ft export WANDB_ENTITY="nlp-team"',
    "@property\n    @torch.no_grad()\n@dataclass(frozen=True)\n  @staticmethod  # why\nuse @torch.compile on it",
    "@here the job died again; npm i @types/node; pip install git+https://github.com/x/y@main",
    "    @Test public void trainsOneStep() { @Autowired Trainer t; uses: actions/checkout@v4 }",
    '{"@timestamp": "2024-05-06T10:42:01Z", "level": "error"} and $@ and a @ b',
    "00000000 (Not Committed Yet 2026-12-04 03:05:28 +0000 4) z = 3",
    "wandb: ⭐️ View project at https://wandb.ai/acme-ml/llama-ft",
    "Set-Cookie: theme=dark; Path=/; Max-Age=3600; SameSite=Lax; _ga=GA1.2.1234567890.1700000000",
    "api_key=None token=None password= --password-stdin",
    "deepspeed.runtime.zero.stage3: [INFO] [stage3.py:1850:step] overflow in step 120, skipping",
    "COMET INFO: Experiment is live on comet.com https://www.comet.com/acme-ml/llama-ft/3k2j1h9x",
    "scp: /scratch/ckpt: No space left on device; GPU gpu0 of an a100-80gb, A100-SXM4-80GB, http://mlflow:5000/#/experiments/1",
    "       JobID    JobName      User      State ExitCode \n------------ ---------- --------- ---------- -------- \n     9923491   pretrain      root     FAILED      1:0 ",
    "cmd = /usr/bin/python -u -m deepspeed.launcher.launch --world_info=eyJsb2NhbGhvc3QiOiBbMF19 --master_addr=127.0.0.1",
    # Branch types, models and system namespaces are nobody's; a team or a service owns things
    # too; things, not people, trigger runs; a number of calls is no phone number.
    "  remotes/origin/feature/llama3-rope\n  remotes/origin/dependabot/pip/torch-2.5.1\nOn branch release/v2.1",
    "$ kubectl get pods -n kube-system\nNamespace:        gpu-operator\nkubectl logs -n kubeflow-user-ml-team x",
    # A GECOS office is a room; Azure Pipelines' hosted agent user; a pod's service user.
    "Office: Room 4.12, x4567",
    "INFO: Log file is located at: /home/vsts/.azcopy/8f7c1e2a.log\nsecurityContext:\n  user: trainer\nUSER=trainer",
    # What a CI run says started it when no person did; an RL config's actor.
    "Pipeline #12 triggered by (schedule)\nRun #3 (by cron) ok\nDeploy #12 (by dependabot[bot])\ntriggered by push on main",
    '"actor": "policy_net", actor: mlp; triggered by the scheduler; Job triggered by schedule.',
    # Models, versions, GPU products and steps in a mail's subject or a sentence are no machines.
    "Subject: Re: bf16-mixed OOM with zero-3 on llama-3-8b\nSubject: Re: [ml-team] h100-sxm5 nodes arriving 2026-12-10",
    "Subject: qwen2-72b-instruct diverges after step-1200\nSubject: Weekly report week-49\nSubject: FW: python3-11 env broken",
    "rank-0 is hung in all-reduce; stage-2 is stuck at 0%; gpt-4o is down again; sdxl-1 is out of memory",
    # Teams', tools' and the system's namespaces and pods.
    "namespace: ml-prod\nNamespace:    search-dev\nnamespace: cert-manager\nnamespace: kserve-test\n$ kubectl get pods -n training",
    "NAME                                READY   STATUS    RESTARTS   AGE\n"
    "coredns-5d78c9869d-abcde            1/1     Running   0          3d\n"
    "nginx-ingress-5d78c9869d-x2k4q      1/1     Running   0          3d\n"
    "mariadb-0                           1/1     Running   0          1d\n"
    "qdrant-0                            1/1     Running   0          1d\n"
    "mpijob-launcher-abcde               1/1     Running   0          1d\n"
    "mnist-train-7f9c8d-x2k4q            0/1     Error     3          5m\n"
    "qlora-ft-launcher-6c9d7-abcde       0/1     Error     0          5m\n"
    "xlnet-finetune-6c9d7-fghij          0/1     Error     0          5m\n"
    "pod/train-job-launcher-x2k4q created; pod/kserve-controller-manager-0 created; pod/mlflow-server-0 created",
    '{"owner": "ml-platform", "created_by": "airflow"} Owner=N/A',
    "Triggered by Pull Request; Cancelled by Slurm Controller; caused by Out Of Memory",
    "call 3 times at 12:00; reach 1000 steps; text 2026 12 05",
    "loss | +0.25 | step 1200 | +3 more | +1 (2 GPUs)",
    # Owners and maintainers that are tools, teams or projects.
    'reporter: wandb\nOwner: Data Platform\nCreated by Meta Platforms\n{"owner": "wandb", "created_by": "root"}',
    "Maintainer: Ubuntu Developers\n  remotes/origin/gh-readonly-queue/main/pr-123-abc",
    "Approved by Change Advisory Board\nReviewed-by: Continuous Integration\nTriggered by the NCCL watchdog after 1800s",
    "jupyter-lab --port 8888; jupyter-notebook; pip install jupyter-server-proxy; ~/.ssh ~1 x~y/ a~b/c",
    "chown root:root /etc/x; chown -R 1000:1000 /data; /dev/shm: No space left on device",
    "node 3 of 16, node rank-01, node cuda12x, Node 0: ok, nodes: 16, drain the queue, reboot required",
    '0f1e2d3c4b5a   vllm/vllm-openai:v0.6.3   "python3 -m vllm.ent…"   3 days ago   Up 3 days   8000/tcp   vllm-dev',
]


def _placeholder_for(masked: str) -> list[str]:
    return PLACEHOLDER.findall(masked)


@pytest.mark.parametrize(("line", "value", "kind"), SECRETS, ids=[s[2] + ":" + s[0][:24] for s in SECRETS])
def test_secret_is_masked_with_its_kind(line: str, value: str, kind: str) -> None:
    """A planted credential is gone, replaced by a placeholder naming its kind; the key stays."""
    masked = mask(line).text
    assert value not in masked
    assert any(p.startswith(f"<{kind}-") for p in _placeholder_for(masked)), masked


@pytest.mark.parametrize(("line", "value", "label"), PERSONAL, ids=[p[2] + ":" + p[0][:24] for p in PERSONAL])
def test_personal_data_is_masked(line: str, value: str, label: str) -> None:
    """IPs, GIDs, hosts, e-mails and user names become <IP-n>, <HOST-n>... placeholders."""
    masked = mask(line).text
    assert not re.search(r"(?<![\w.])" + re.escape(value) + r"(?![\w])", masked), masked
    assert any(p.startswith(f"<{label}-") for p in _placeholder_for(masked)), masked


@pytest.mark.parametrize("line", DECOYS)
def test_text_without_secrets_is_unchanged(line: str) -> None:
    """Versions, digests, GPU ids, PCI ids, tokenizer settings, public hosts survive byte for byte."""
    result = mask(line)
    assert result.text == line
    assert result.counts == {}


_CSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def _coloured(line: str) -> str:
    """Every word of a line coloured as structlog's or rich's console renderers colour them."""
    return re.sub(r"[^\s=:,]+", lambda m: f"\x1b[35m{m.group()}\x1b[0m", line)


@pytest.mark.parametrize(("line", "value", "kind"), [*SECRETS, *PERSONAL], ids=[s[2] + ":" + s[0][:24] for s in (*SECRETS, *PERSONAL)])
def test_colour_codes_are_transparent(line: str, value: str, kind: str) -> None:
    """A coloured line masks as the plain line does, with its colour codes kept in place."""
    masked = mask(_coloured(line)).text
    assert _CSI.sub("", masked) == mask(line).text


def test_terminal_colours_as_tools_print_them() -> None:
    """wandb's banner (also with the escape lost, as copied out of a notebook), a GitHub Actions
    command echo, structlog's key=value pairs: names and secrets go, the codes stay, and a
    secret has one placeholder whether coloured or not."""
    lines = [
        "\x1b[34m\x1b[1mwandb\x1b[0m: Currently logged in as: \x1b[33mquincyqiang\x1b[0m (use `wandb login --relogin` to force relogin)",
        "[34m[1mwandb[0m: Currently logged in as: [33mquincyqiang[0m (use `wandb login --relogin` to force relogin)",
    ]
    for line in lines:
        masked = mask(line).text
        assert "quincyqiang" not in masked and "<USER-1>" in masked
        assert masked.replace("<USER-1>", "quincyqiang") == line
    gha = "\x1b[36;1mexport DB_PASSWORD=Falcon2024!xQ\x1b[0m\npsql: FATAL: password Falcon2024!xQ rejected\n"
    masker = Masker()
    masker.learn(gha.encode())
    assert masker.mask(gha) == "\x1b[36;1mexport DB_PASSWORD=<SECRET:password-1>\x1b[0m\npsql: FATAL: password <SECRET:password-1> rejected\n"
    structlog = "2024-05-06 10:42:01 [\x1b[32minfo     \x1b[0m] \x1b[1mconnecting\x1b[0m \x1b[36mpassword\x1b[0m=\x1b[35mQuasar2031&Tn\x1b[0m \x1b[36mapi_key\x1b[0m=\x1b[35msk-proj-Lq8ZpT3vB7nR1mW4sY6dXk29fLhJ2q8ZpT3vB7nR1mW4s\x1b[0m"
    assert mask(structlog).text == (
        "2024-05-06 10:42:01 [\x1b[32minfo     \x1b[0m] \x1b[1mconnecting\x1b[0m \x1b[36mpassword\x1b[0m=\x1b[35m<SECRET:password-1>\x1b[0m"
        " \x1b[36mapi_key\x1b[0m=\x1b[35m<SECRET:openai-key-1>\x1b[0m"
    )
    # `[5m]` in a text without a bare reset code is no colour code; `[ml350.hpc]` never is.
    assert mask("timeout [5m] on [ml350] [0m").text == "timeout [5m] on [ml350] [0m"


def test_key_is_kept_and_value_replaced() -> None:
    """`WANDB_API_KEY=<SECRET:wandb-key-1>`: the env var name is a diagnostic fact."""
    result = mask("WANDB_API_KEY=bb65ba2f177371e50ff7bf5a5e5ec85887951cc9\n")
    assert result.text == "WANDB_API_KEY=<SECRET:wandb-key-1>\n"
    assert result.counts == {"wandb-key": 1}
    assert isinstance(result, MaskResult)


def test_nccl_prefix_keeps_pid_tid_and_device() -> None:
    """Only the host of `host:pid:tid [dev] NCCL` changes; the matcher parses the rest."""
    line = "[rank3]: gpu-node-08:51877:52044 [3] NCCL WARN NET/IB : Got completion from peer 10.1.2.3<5123>"
    masked = mask(line).text
    assert masked.startswith("[rank3]: <HOST-1>:51877:52044 [3] NCCL WARN NET/IB : Got completion from peer <IP-1><5123>")
    assert re.search(r"[^\s:]+:\d+:\d+ \[\d+\] NCCL", masked)


def test_show_gids_keeps_index_version_and_device_columns() -> None:
    """RoCE GIDs and their IPv4 are masked; GID index, RoCE version and device stay.

    The well-known prefixes stay too: link-local (fe80) versus IPv4-mapped is the diagnosis
    of a wrong NCCL_IB_GID_INDEX, and neither prefix identifies anyone. The mapped GID's
    address is the same host as its IPv4 column, so both read <IP-1>.
    """
    text = (
        "mlx5_0  1       0       fe80:0000:0000:0000:0e42:a1ff:fe9b:6d2c                 v1      ens1f0np0\n"
        "mlx5_0  1       3       0000:0000:0000:0000:0000:ffff:0a14:0307 10.20.3.7       v2      ens1f0np0\n"
        "NET/IB : Got completion from peer 10.20.3.7<51234> localGid fe80::ba3f:d2ff:fe4c:11a0 remoteGids::ffff:10.20.3.7\n"
    )
    assert mask(text).text == (
        "mlx5_0  1       0       fe80:0000:0000:0000:<IPV6-1>                 v1      ens1f0np0\n"
        "mlx5_0  1       3       0000:0000:0000:0000:0000:ffff:<IP-1> <IP-1>       v2      ens1f0np0\n"
        "NET/IB : Got completion from peer <IP-1><51234> localGid fe80::<IPV6-2> remoteGids::ffff:<IP-1>\n"
    )


def test_url_keeps_scheme_host_port_path_and_harmless_params() -> None:
    """Only userinfo and credential parameters go; the rest of the URL is the diagnosis."""
    url = "redis://:Sup3rS3cret@10.42.0.15:6379/0 and https://x.s3.amazonaws.com/k?X-Amz-Expires=3600&X-Amz-Signature=abcdef0123456789abcdef0123456789"
    assert mask(url).text == (
        "redis://:<SECRET:password-1>@<IP-1>:6379/0 and "
        "https://x.s3.amazonaws.com/k?X-Amz-Expires=3600&X-Amz-Signature=<SECRET:aws-signature-1>"
    )


def test_same_value_same_placeholder_and_different_values_differ() -> None:
    """Consistent per-log placeholders: rank 3 at <IP-2> could not reach <IP-1> still reads."""
    text = "rank 0 at 10.0.0.1\nrank 3 at 10.0.0.4 could not reach 10.0.0.1\nHF_TOKEN=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 --hf_token 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\n"
    masked = mask(text).text
    assert masked == (
        "rank 0 at <IP-1>\nrank 3 at <IP-2> could not reach <IP-1>\n"
        "HF_TOKEN=<SECRET:hf-token-1> --hf_token <SECRET:hf-token-1>\n"
    )


def test_counts_per_kind() -> None:
    """counts says how many values of each kind were masked, never the values."""
    result = mask("a 10.0.0.1 b 10.0.0.2 c 10.0.0.1 jsmith@acme.org 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")
    assert result.counts == {"ip": 3, "email": 1, "hf-token": 1}


def test_learned_user_name_is_masked_everywhere() -> None:
    """`wandb: Currently logged in as: alice` teaches the name; later bare mentions go too."""
    text = "job owner: jsmith\nwandb: Currently logged in as: jsmith (acme-llm). Use `wandb login --relogin`\nrun-jsmith-7 by jsmith's job\n"
    masked = mask(text).text
    assert "jsmith" not in masked
    assert masked.splitlines()[2] == "run-<USER-1>-7 by <USER-1>'s job"


def test_learned_names_and_secrets_are_masked_between_non_ascii_characters() -> None:
    """A progress bar's glyphs on a line (tqdm's `█▌`) change nothing: a learned name, host or
    secret is masked beside them, and a non-ASCII character stands for itself, not for a `?`
    in a learned value, nor is a learned name that holds one missed."""
    masker = Masker()
    masker.learn(
        b"export DB_PASSWORD='Kx7?vQ2mZp9w'\n"
        b"wandb: Currently logged in as: jsmith (acme). Use `wandb login --relogin` to force relogin\n"
        b"NodeName=r055 State=IDLE\n"
    )
    out = masker.mask("\u2588\u258c jsmith\u2588 \u2588jsmith\u00e9 r310\u2588 r056\u00e9 Kx7?vQ2mZp9w Kx7\u00e9vQ2mZp9w\n")
    assert out == "\u2588\u258c <USER-1>\u2588 \u2588<USER-1>\u00e9 <HOST-1>\u2588 <HOST-2>\u00e9 <SECRET:password-1> Kx7\u00e9vQ2mZp9w\n", out
    masker = Masker()
    masker.learn("wandb: Currently logged in as: zo\u00eb (acme). Use `wandb login --relogin` to force relogin\n".encode())
    out = masker.mask("\u2588 zo\u00eb\u2588 zo? zo\u00ebx\n")
    assert out == "\u2588 <USER-1>\u2588 zo? zo\u00ebx\n", out


def test_an_address_opening_a_text_that_ends_in_a_scheme_is_an_address() -> None:
    """Only `://` just before an address makes it a URL's userinfo, not one at the text's end."""
    assert mask("hannah.fischer@acme-corp.de wrote: see x://").text == "<EMAIL-1> wrote: see x://"


def test_a_database_login_is_masked_where_given_and_not_learned() -> None:
    """`mysql -u optuna` names the database's account, after the service it stores for: the
    login goes, the `optuna.exceptions` module path of the traceback below it stays."""
    text = ("$ mysql -h db01 -u optuna -pS3cr3tpjGHwi optuna\n"
            "optuna.exceptions.StorageInternalError: An exception is raised during the commit.\n")
    masked = mask(text).text.splitlines()
    assert "-u <USER-1>" in masked[0] and "S3cr3tpjGHwi" not in masked[0]
    assert masked[1] == "optuna.exceptions.StorageInternalError: An exception is raised during the commit."


def test_owners_of_things_are_learned_and_masked_in_the_things() -> None:
    """A login seen only as a branch prefix, a JSON log's owner or a namespace is masked in the
    pods, containers and prose that carry it, before and after the line that teaches it."""
    text = (
        "kowalski39-train-0   0/1   CrashLoopBackOff\n"
        "  remotes/origin/kowalski39/fix-oom\n"
        '{"level": "error", "host": "nid0051", "owner": "niamhba"}\n'
        "docker logs niamhba_train; Node:  nid0051/10.1.2.3\n"
    )
    masker = Masker()
    masker.learn(text.encode())
    masked = masker.mask(text)
    assert "kowalski39" not in masked and "niamhba" not in masked and "nid0051" not in masked, masked
    assert re.fullmatch(r"<USER-\d>-train-0   0/1   CrashLoopBackOff", masked.splitlines()[0]), masked


def test_a_learned_numbered_host_teaches_its_siblings() -> None:
    """A cluster numbers its nodes alike: `sc-061` learned from a prompt makes `sc-064` in a
    chat line a machine too (same stem, same digit count); other numbers and words stay. (A
    mail subject or a line saying it keeps draining would name it a machine on its own.)"""
    text = (
        "[hfischer@sc-061 ~]$ sinfo -R\n"
        "Re: sc-064 again, same as last week\n"
        "sc-0641 sc-06 a100-80gb sc-064-ib0 xsc-065 step-100\n"
    )
    masked = mask(text).text
    assert masked.splitlines()[1] == "Re: <HOST-2> again, same as last week"
    assert masked.splitlines()[2] == "sc-0641 sc-06 a100-80gb sc-064-ib0 xsc-065 step-100"


def test_a_learned_host_teaches_the_hosts_of_its_digit_shape() -> None:
    """Siblings are the names that differ from a learned host in its digits only, wherever
    they stand and however few letters there are (`r310` for `r055`, `sc3-rack9` for
    `sc7-rack2`); a sibling followed by more of a name is not one, the learned host still is."""
    masker = Masker()
    masker.learn(b"NodeName=r055 State=IDLE\nNodeName=sc7-rack2 State=IDLE\n")
    out = masker.mask("r310 and sc3-rack9 drained; r056-ib0 up, r055-ib0 up, r5 xr056 r0566 R310 sc3-rack10\n")

    assert out == "<HOST-1> and <HOST-2> drained; r056-ib0 up, <HOST-3>-ib0 up, r5 xr056 r0566 R310 sc3-rack10\n", out


def test_lines_that_differ_in_hex_ids_still_teach_each_name() -> None:
    """A loader names a new shard, request or object on every line (`<uuid>.tar`, `cache-
    3f2a9c0b1e4d.arrow`): those lines are one shape for learning, but a line that differs in a
    name is a new one, whatever ids it carries, and its name is learned."""
    lines = [f"loading /home/jsmith/shards/{uuid.UUID(int=i * 7919 + 12345)}.tar req=3f2a9c{i:04d}e1b7 ok\n" for i in range(300)]
    lines.insert(150, "loading /home/okafor/shards/9b1c2d3e-0f4a-4b5c-8d6e-7f8091a2b3c4.tar req=77ab00c4d1e2 ok\n")
    lines.append("loading /home/deadbeef/shards/0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d.tar req=3f2a9c0001e1b7 ok\n")
    masker = Masker()
    masker.learn("".join(lines).encode())
    out = masker.mask("jsmith, okafor and deadbeef were paged; 3f2a9c0007e1b7 stays\n")
    assert out == "<USER-1>, <USER-2> and <USER-3> were paged; 3f2a9c0007e1b7 stays\n", out


def test_cache_lines_of_new_hex_ids_teach_names_made_of_hex_letters() -> None:
    """HF datasets names a new fingerprint on every cache line: those lines are one shape, but
    a user whose name is all hex letters (`bea`, `faced`) beside the ids is still a new one."""
    rng = random.Random(5)

    def hexes(n: int) -> str:
        return "".join(rng.choice("0123456789abcdef") for _ in range(n))

    def cached(user: str) -> str:
        return (f"Loading cached processed dataset at /home/{user}/.cache/huggingface/datasets/json/default-{hexes(16)}/"
                f"0.0.0/{hexes(64)}/cache-{hexes(16)}.arrow\n")  # fmt: skip

    lines = [cached("jsmith") for _ in range(200)]
    lines.insert(70, cached("bea"))
    lines.insert(140, cached("faced"))
    masker = Masker()
    masker.learn("".join(lines).encode())
    out = masker.mask("jsmith, bea and faced were paged\n")
    assert out == "<USER-1>, <USER-2> and <USER-3> were paged\n", out


@pytest.mark.parametrize(
    "lines",
    [
        # pdsh's `worker-3: ` and srun's ` 12: `
        ("blade-a7: blade-a7:1234:1234 [0] NCCL INFO Bootstrap : Using ib0:10.0.0.1<0>",
         " 12: blade-b3:4321:4321 [1] NCCL INFO Bootstrap : Using ib0:10.0.0.2<0>"),
        # Ray Train's actor label, coloured on a terminal, and with the escape byte lost in a paste
        ("\x1b[36m(RayTrainWorker pid=1234, ip=10.0.0.5)\x1b[0m blade-a7:1234:1299 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC",
         "[36m(RayTrainWorker pid=4321, ip=10.0.0.6)[0m blade-b3:4321:4399 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] via P2P/IPC"),
    ],
    ids=["pdsh-srun", "ray"],
)
def test_hosts_of_nccl_prefixes_behind_launcher_labels_are_learned(lines: tuple[str, str]) -> None:
    """A launcher's label stands before what a node's NCCL prints: the host of the NCCL prefix
    behind it is learned from the whole log, and masked where a line before it names the node
    bare."""
    log = "moving the job off blade-a7 tonight, blade-b3 too\n" + "".join(line + "\n" for line in lines)
    masker = Masker()
    masker.learn(log.encode())
    assert masker.mask(log.splitlines(keepends=True)[0]) == "moving the job off <HOST-1> tonight, <HOST-2> too\n"


def test_a_stem_at_the_very_end_of_a_text_is_no_sibling() -> None:
    """`sc-06` ending a piece has fewer digits than its learned siblings: kept, not an error."""
    masker = Masker()
    masker.learn(b"NodeName=sc-061 State=IDLE\n")
    assert masker.mask("Re: sc-06") == "Re: sc-06"


def test_a_relaying_service_is_no_part_of_the_name() -> None:
    """Slack and Google Groups send as `<person> via <service> <address>`: the person goes."""
    masked = mask("From: Hannah Fischer via Slack <notifications@slack.com>\n").text
    assert masked == "From: <NAME-1> via Slack <notifications@slack.com>\n"


def test_a_role_name_is_learned_for_the_rest_of_the_log() -> None:
    text = "Pipeline #48213 triggered by Elif Quinn\nthanks Elif Quinn, rerunning\n"
    assert mask(text).text == "Pipeline #48213 triggered by <NAME-1>\nthanks <NAME-1>, rerunning\n"


def test_wandb_team_entity_is_kept_and_personal_entity_masked() -> None:
    """`(acme-ml)` is a team: kept in the banner and in its run URLs; the user's own entity goes."""
    text = "wandb: Currently logged in as: jsmith (acme-ml). Use\nhttps://wandb.ai/acme-ml/p/runs/x https://wandb.ai/jsmith/p/runs/y\n"
    masked = mask(text).text
    assert masked == "wandb: Currently logged in as: <USER-1> (acme-ml). Use\nhttps://wandb.ai/acme-ml/p/runs/x https://wandb.ai/<USER-1>/p/runs/y\n"


def test_names_mac_and_accounts_keep_the_line_structure() -> None:
    """Names, MACs and account ids are replaced in place: keys, roles and separators stay. A
    GECOS office (a room) names a place and stays; its phone fields are phone numbers."""
    text = (
        "hfischer:x:1001:1001:Hannah Fischer,Room 4,+49 89 1234 5678,:/home/hfischer:/bin/bash\n"
        "Author: Hannah Fischer <hannah.fischer@acme.io>\n"
        "    link/ether 0c:42:a1:9b:6d:2c brd ff:ff:ff:ff:ff:ff\n"
        '"Arn": "arn:aws:iam::123456789012:role/SageMakerExecutionRole"\n'
        "later Hannah Fischer said\n"
    )
    assert mask(text).text == (
        "<USER-1>:x:1001:1001:<NAME-1>,Room 4,<PHONE-1>,:/home/<USER-1>:/bin/bash\n"
        "Author: <NAME-1> <<EMAIL-1>>\n"
        "    link/ether <MAC-1> brd ff:ff:ff:ff:ff:ff\n"
        '"Arn": "arn:aws:iam::<ACCOUNT-1>:role/SageMakerExecutionRole"\n'
        "later <NAME-1> said\n"
    )


def test_an_iam_user_in_an_arn_is_learned_as_an_account_name() -> None:
    """botocore's AccessDenied names the IAM user; the same person's namespace is masked too,
    also above the line that taught it. A role session name is masked in place, not learned."""
    text = (
        "$ kubectl get pods -n plindqvist\n"
        "botocore.exceptions.ClientError: An error occurred (AccessDenied) when calling the GetObject operation: "
        "User: arn:aws:iam::940127549046:user/plindqvist is not authorized to perform: s3:GetObject\n"
        '"Arn": "arn:aws:sts::940127549046:assumed-role/MLTrainingRole/gitlab-ci"\n'
        "see gitlab-ci.yml\n"
    )
    assert mask(text).text == (
        "$ kubectl get pods -n <USER-1>\n"
        "botocore.exceptions.ClientError: An error occurred (AccessDenied) when calling the GetObject operation: "
        "User: arn:aws:iam::<ACCOUNT-1>:user/<USER-1> is not authorized to perform: s3:GetObject\n"
        '"Arn": "arn:aws:sts::<ACCOUNT-1>:assumed-role/MLTrainingRole/<USER-2>"\n'
        "see gitlab-ci.yml\n"
    )


def test_a_first_last_address_teaches_the_persons_name() -> None:
    """`olivier.raman@` names Olivier Raman wherever the log spells the name out; a verb before
    an address (`Contact <...>`) names nobody."""
    text = "Contact <olivier.raman@globex.io> or Olivier Raman for quota.\nOlivier Raman: try again\n"
    assert mask(text).text == "Contact <<EMAIL-1>> or <NAME-1> for quota.\n<NAME-1>: try again\n"


def test_name_fields_of_a_directory_user_and_a_quoted_mail_header() -> None:
    """`az ad signed-in-user show` (keys kept, a service's display name kept) and Gmail's
    quote header, whose clock is no part of the name."""
    text = (
        "{\n"
        '  "displayName": "Marco Rossi",\n'
        '  "givenName": "Marco",\n'
        '  "surname": "Rossi",\n'
        '  "userPrincipalName": "mrossi@acme-ai.com"\n'
        "}\n"
        '  "displayName": "ML Platform Service",\n'
        '  "run_name": "Llama ft",\n'
        "On Tue, May 14, 2024 at 10:02 AM Hannah Fischer <hannah.fischer@acme-ai.com> wrote:\n"
    )
    assert mask(text).text == (
        "{\n"
        '  "displayName": "<NAME-1>",\n'
        '  "givenName": "<NAME-2>",\n'
        '  "surname": "<NAME-3>",\n'
        '  "userPrincipalName": "<EMAIL-1>"\n'
        "}\n"
        '  "displayName": "ML Platform Service",\n'
        '  "run_name": "Llama ft",\n'
        "On Tue, May 14, 2024 at 10:02 AM <NAME-4> <<EMAIL-2>> wrote:\n"
    )


def test_hosts_under_the_domain_of_a_persons_address_are_masked() -> None:
    """`hannah@initech.de` makes `initech.de` an organisation's domain: its hosts go (a pip
    index behind a token, a mail relay); a `.de` file name and the bare domain do not, and a mail
    provider's domain is no organisation's."""
    text = (
        "From: Hannah Fischer <hannah.fischer@initech.de>\n"
        "Received: from mx1.initech.de (mx1.initech.de [198.51.100.69])\n"
        "Looking in indexes: https://__token__:****@gitlab.initech.de/api/v4/projects/42/packages/pypi/simple\n"
        "see initech.de; data/newstest2014.en-de.de; cc marco.rossi@gmail.com\n"
    )
    assert mask(text).text == (
        "From: <NAME-1> <<EMAIL-1>>\n"
        "Received: from <HOST-1> (<HOST-1> [<IP-1>])\n"
        "Looking in indexes: https://__token__:****@<HOST-2>/api/v4/projects/42/packages/pypi/simple\n"
        "see initech.de; data/newstest2014.en-de.de; cc <EMAIL-2>\n"
    )


def test_a_system_sender_is_no_person() -> None:
    assert mask("From: Slurm Workload Manager <slurm@login01.acme.io>").text == "From: Slurm Workload Manager <<EMAIL-1>>"


def test_password_piped_to_password_stdin_and_pw_keys() -> None:
    text = 'PGPASSWORD=Quasar2024 psql -h db\necho "Quasar2024x" | docker login --username trainer --password-stdin registry.acme.io\nldap_bind_pw: Marble2024z\n'
    masked = mask(text).text
    assert "Quasar2024" not in masked and "Marble2024z" not in masked
    assert 'echo "<SECRET:password-2>" | docker login' in masked  # whole, not the learned prefix + `x`


def test_url_password_with_a_hash_is_masked_whole() -> None:
    masked = mask("REDIS_URL=redis://:Tundra2024#Xk9@10.2.3.4:6379/0").text
    assert masked == "REDIS_URL=redis://:<SECRET:password-1>@<IP-1>:6379/0"


def test_deepspeed_world_info_hosts_are_masked_inside_the_base64() -> None:
    """`--world_info=` is urlsafe base64 of JSON: decoded, its host keys become the log's own
    placeholders, and the argument is valid base64 of the same JSON again."""
    world = base64.urlsafe_b64encode(json.dumps({"trn1-07": [0, 1], "trn1-08": [0, 1]}).encode()).decode()
    text = f"cmd = pdsh -S -f 1024 -w trn1-07,trn1-08 export NCCL_DEBUG=INFO; cd /x; python -u -m deepspeed.launcher.launch --world_info={world} --node_rank=%n train.py\nssh trn1-08 uptime\n"
    masked = mask(text).text
    encoded = re.search(r"--world_info=(\S+)", masked).group(1)
    assert json.loads(base64.urlsafe_b64decode(encoded)) == {"<HOST-1>": [0, 1], "<HOST-2>": [0, 1]}
    assert "trn1-0" not in masked
    assert masked.endswith("ssh <HOST-2> uptime\n")
    assert mask(masked).text == masked


def test_world_info_of_nodes_named_by_address_gets_the_logs_ip_placeholders() -> None:
    """A pdsh run over `-w 192.168.100.101` encodes `{"192.168.100.101": [0, 1]}`."""
    world = base64.urlsafe_b64encode(json.dumps({"192.168.100.101": [0, 1]}).encode()).decode()
    masked = mask(f"cmd = pdsh -f 1024 -w 192.168.100.101 cd /src; python -u -m deepspeed.launcher.launch --world_info={world} --node_rank=%n").text
    encoded = re.search(r"--world_info=(\S+)", masked).group(1)
    assert "-w <IP-1> " in masked
    assert json.loads(base64.urlsafe_b64decode(encoded)) == {"<IP-1>": [0, 1]}


def test_kubectl_table_split_across_chunks_keeps_its_columns() -> None:
    """Rows after the chunk holding the header are still read by the header's columns."""
    masker = Masker()
    header = "NAME               READY   STATUS      RESTARTS     AGE   IP            NODE           NOMINATED NODE   READINESS GATES\n"
    row = "trainer-worker-{0}   1/1     Running     2 (3m ago)   5m    10.244.1.{0}   a100-pool-0{0}   <none>           <none>\n"
    first = masker.mask("$ kubectl get pods -o wide\n" + header + row.format(1))
    second = masker.mask(row.format(2) + "\nTraceback (most recent call last):\n  a100-pool-02 is named here too\n")
    assert "a100-pool" not in first + second
    assert "<IP-2>   <HOST-2>   <none>" in second.splitlines()[0]
    assert second.splitlines()[-1] == "  <HOST-2> is named here too"


def test_long_tables_are_masked_to_their_last_row() -> None:
    rows = "".join(f"trainer-{i}   1/1   Running   0   5m   10.1.{i // 250}.{i % 250}   a100-{i}   <none>   <none>\n" for i in range(12_000))
    masked = mask("NAME   READY   STATUS   RESTARTS   AGE   IP   NODE   NOMINATED NODE   READINESS GATES\n" + rows).text
    assert "a100-" not in masked


def test_hostlist_teaches_every_node_it_names() -> None:
    """`NodeList=gpu-node-[07-08]` masks the list and teaches gpu-node-07 and gpu-node-08."""
    masked = mask("   NodeList=gpu-node-[07-08]\nXid 79 on gpu-node-08\n").text
    assert masked == "   NodeList=<HOST-1>\nXid 79 on <HOST-2>\n"


def test_learned_host_is_masked_everywhere() -> None:
    """A host learned from MASTER_ADDR is masked wherever it stands as a word."""
    masked = mask("MASTER_ADDR=gpu-node-07\nssh gpu-node-07 uptime\n").text
    assert masked == "MASTER_ADDR=<HOST-1>\nssh <HOST-1> uptime\n"


def test_nccl_comm_lines_teach_through_their_prefix_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """NCCL's `nNodes 8` is not slurm's `Nodes a,b are ready`: the comm line printed on every
    rank is not read by the teaching passes (its host comes from the prefix), the slurm line is."""
    import bot.masking.masker as masker_module

    read: list[str] = []
    real = masker_module._mask_all
    monkeypatch.setattr(masker_module, "_mask_all", lambda text, state: (read.append(text), real(text, state))[1])
    m = Masker()
    m.learn(b"gpu-node-002:2926660:2927277 [7] NCCL INFO comm 0x64c5b7206d0 rank 23 nRanks 64 nNodes 8 localRanks 8 localRank 7 MNNVL 0\n")
    assert read == []
    assert m.mask("ssh gpu-node-002 uptime") == "ssh <HOST-1> uptime"
    m.learn(b"salloc: Nodes a100-13,a100-14 are ready for job\n")
    assert "Nodes a100-13" in read[-1]
    assert m.mask("a100-14 rebooted") == "<HOST-2> rebooted"


def test_pem_block_keeps_line_count() -> None:
    """A multi-line private key's body becomes one placeholder and blank lines: later lines keep
    their number, and the markers stay (their label says which key it was)."""
    body = "\n".join(["MIIEpAIBAAKCAQEA1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r8s9t0u1v2w3x4y5z"] * 5)
    text = f"before\n-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----\nafter 10.0.0.1\n"
    masked = mask(text).text
    assert masked.count("\n") == text.count("\n")
    lines = masked.split("\n")
    assert lines[:3] == ["before", "-----BEGIN RSA PRIVATE KEY-----", "<SECRET:private-key-1>"]
    assert all(not line for line in lines[3:7])
    assert lines[7:9] == ["-----END RSA PRIVATE KEY-----", "after <IP-1>"]


def test_escaped_pem_in_json_and_one_line_pem_are_masked_the_same_way() -> None:
    """A `\\n`-escaped key in a GCP service-account JSON is one placeholder, like a block; the
    markers and the escaped line breaks beside them stay."""
    text = '{"private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\\nAbCdEf0123456789\\n-----END PRIVATE KEY-----\\n"}'
    assert mask(text).text == '{"private_key": "-----BEGIN PRIVATE KEY-----\\n<SECRET:private-key-1>\\n-----END PRIVATE KEY-----\\n"}'
    one_line = 'KEY="-----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXktdjEAAAAABG5vbmU= -----END OPENSSH PRIVATE KEY-----"'
    assert mask(one_line).text == 'KEY="-----BEGIN OPENSSH PRIVATE KEY----- <SECRET:private-key-1> -----END OPENSSH PRIVATE KEY-----"'


def test_pem_block_without_end_stops_at_first_non_key_line() -> None:
    """A paste cut before END costs the key, never the rest of the log."""
    text = "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBLaBcDeFgHiJkLmNoPqRsTuVwXyZ\nTraceback (most recent call last):\nRuntimeError: boom\n"
    assert mask(text).text == "-----BEGIN EC PRIVATE KEY-----\n<SECRET:private-key-1>\nTraceback (most recent call last):\nRuntimeError: boom\n"


def test_pem_block_across_chunks() -> None:
    """A block opened in one chunk and closed in a later one is masked whole, lines kept."""
    masker = Masker()
    parts = [
        "start\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n",
        "AAAAAAAABAAAAMwAAAAtzc2gtZWQyNTUxOQAAACD\n-----END OPENSSH PRIVATE KEY-----\n",
        "next 10.0.0.9\n",
    ]
    out = [masker.mask(p) for p in parts]
    assert out == ["start\n-----BEGIN OPENSSH PRIVATE KEY-----\n<SECRET:private-key-1>\n", "\n-----END OPENSSH PRIVATE KEY-----\n", "next <IP-1>\n"]
    assert masker.counts == {"private-key": 1, "ip": 1}


def test_kubernetes_secret_data_values_are_masked() -> None:
    """Secret `data:` values are base64 of credentials; plain config under `data:` is not."""
    text = (
        "apiVersion: v1\ndata:\n  password: UEBzcy1SaXlNUDJCaG03QTc=\n  username: YWxpY2U=\nkind: Secret\n"
        "---\ndata:\n  path: /data/train\n  batch_size: 32\n  name: wikitext\n"
    )
    masked = mask(text).text
    assert "UEBzcy1SaXlNUDJCaG03QTc=" not in masked and "YWxpY2U=" not in masked
    assert "  path: /data/train\n  batch_size: 32\n  name: wikitext\n" in masked


def test_masking_is_idempotent_and_keeps_placeholders_of_earlier_runs() -> None:
    """mask(mask(x)) == mask(x): our placeholders are never masked again."""
    text = (DATA / "finetune-config-dump.log").read_text()
    once = mask(text).text
    assert mask(once).text == once


def test_chunked_masker_matches_whole_text() -> None:
    """Masker fed line-aligned chunks masks exactly what mask() masks on the whole log.

    Numbering may differ (placeholders are numbered as values are met), so the two outputs
    must be equal up to a one-to-one renaming of placeholders.
    """
    text = (DATA / "torchrun-nccl-roce.log").read_text()
    lines = text.splitlines(keepends=True)
    masker = Masker()
    chunked = "".join(masker.mask("".join(lines[i : i + 7])) for i in range(0, len(lines), 7))
    whole = mask(text).text
    assert PLACEHOLDER.sub("<>", chunked) == PLACEHOLDER.sub("<>", whole)
    pairs = set(zip(PLACEHOLDER.findall(chunked), PLACEHOLDER.findall(whole), strict=True))
    assert len({a for a, _ in pairs}) == len({b for _, b in pairs}) == len(pairs)


def test_crlf_and_non_ascii_are_preserved() -> None:
    """Windows line ends and emoji-bearing wandb lines keep every character not masked."""
    text = "wandb: 🚀 View run at https://wandb.ai/hfischer/p/runs/x\r\nİstanbul host 10.0.0.1\r\n"
    masked = mask(text).text
    assert masked == "wandb: 🚀 View run at https://wandb.ai/<USER-1>/p/runs/x\r\nİstanbul host <IP-1>\r\n"


def test_learned_names_do_not_outlive_the_masker() -> None:
    """The learned-name pattern spells out names, so it stays out of regex's module cache."""
    import regex

    mask("USER=zqxjsmith\n/home/zqxjsmith/x zqxjsmith\n")
    cache = sys.modules[regex.compile.__module__]._cache
    assert not [key for key in cache if "zqxjsmith" in str(key)]


def test_empty_text() -> None:
    """Nothing in, nothing out."""
    assert mask("") == MaskResult("", {})


@pytest.mark.parametrize("path", sorted(DATA.glob("*.log")), ids=lambda p: p.name)
def test_fixture_logs(path: Path) -> None:
    """Realistic logs with planted values: every secret gone (no 8-char piece), every fact kept."""
    text = path.read_text()
    expect = yaml.safe_load(path.with_suffix(".expect.yaml").read_text())
    masked = mask(text).text
    assert masked.count("\n") == text.count("\n")
    for secret in expect["secrets"]:
        pieces = [secret[i : i + 8] for i in range(len(secret) - 7)]
        assert not [p for p in pieces if p in masked], secret
    for value in expect["personal"]:
        assert not re.search(r"(?<![A-Za-z0-9])" + re.escape(value) + r"(?![A-Za-z0-9])", masked), value
    for fact in expect["facts"]:
        assert fact in masked, fact


ADVERSARIAL = {
    "a": lambda n: "a" * n,
    "at": lambda n: "@" * n,
    "begin": lambda n: "-----BEGIN RSA PRIVATE KEY----- " * (n // 32),
    "begin-lines": lambda n: "-----BEGIN RSA PRIVATE KEY-----\n" + "QUJD\n" * (n // 5),
    "digits-dots": lambda n: "1." * (n // 2),
    "quads": lambda n: "10.0.0.1." * (n // 9),
    "scheme": lambda n: "a://" * (n // 4),
    "userinfo": lambda n: "x://a:b@" * (n // 8),
    "token=": lambda n: "token=" * (n // 6),
    "password:": lambda n: "password: " * (n // 10),
    "colons": lambda n: ":" * n,
    "hex-colons": lambda n: "ab::" * (n // 4),
    "labels": lambda n: "a.internal." * (n // 11),
    "homes": lambda n: "/home/" * (n // 6),
    "emailish": lambda n: "a@a." * (n // 4),
    "prompts": lambda n: "alice@node01:~$ " * (n // 16),
    "wandb-hex": lambda n: ("wandb " + "a" * 40 + " ") * (n // 47),
    "data-blocks": lambda n: "".join(" " * (i % 200) + "data:\n" for i in range(n // 100)),
    # Found by review and a repetition fuzzer: each was quadratic or worse before its fix.
    "query-pairs": lambda n: "&sig=" * (n // 5),
    "wandb-login-options": lambda n: "wandb login" + " --a" * (n // 4),
    "wandb-login-options-no-key": lambda n: ("wandb login" + " --a" * 26 + " !\n") * (n // 120),
    "yaml-blank-run": lambda n: "data:\n  key: a" + " " * n + "b\n",
    "pem-blank-run": lambda n: "-----BEGIN RSA PRIVATE KEY-----\n" + " " * n + "x\n",
    "long-digit-values": lambda n: ("key=" + "1" * 4000 + "!\n") * (n // 4006),
    "netrc-words": lambda n: "login-" * (n // 6),
    "user-at-long-host": lambda n: "ssh a@" + "b" * n,
    # The coverage detectors of issue 16 (MACs, names, accounts, host lists and tables).
    "mac-colons": lambda n: "0c:" * (n // 3),
    "ib-hwaddr-runs": lambda n: ("0c:" * 19 + "0c ") * (n // 60),
    "guid-words": lambda n: "Port GUID: 0x" * (n // 13),
    "hostlist-commas": lambda n: "gpu-node-[" + "1," * (n // 2) + "]",
    "hostlist-opens": lambda n: "a[1-" * (n // 4),
    "names-before-address": lambda n: "Aa " * (n // 3) + "<a@b.co>",
    "name-address-runs": lambda n: "Aa Bb <a@b.co> " * (n // 15),
    "at-mentions": lambda n: "@Aa " * (n // 4),
    "chat-header-words": lambda n: ("Aa " * 200 + "10:42 AM\n") * (n // 610),
    "passwd-fields": lambda n: "a:x:1001:1001:" * (n // 14),
    "etc-hosts-words": lambda n: ("<IP-1>" + " a" * 300 + "\n") * (n // 607),
    "kubectl-rows": lambda n: "NAME  READY  STATUS  NODE\n" + "a  1/1  Running  b\n" * (n // 19),
    "aws-key-no-value": lambda n: "aws_secret_access_key:\n" * (n // 23),
    "configure-get": lambda n: "aws configure get aws_secret_access_key " * (n // 40),
    "arn-runs": lambda n: "arn:aws:iam::123456789012:" * (n // 26),
    "account-words": lambda n: "Account: " * (n // 9),
    "zsh-prompt-words": lambda n: "a@b " + "c " * (n // 2),
    "cluster-node-dashes": lambda n: "a-" * (n // 2) + "node-1",
    "slots-lines": lambda n: "a slots=\n" * (n // 9),
    # Issue 16's second round: blame and shortlog rows, mentions, world_info, long tables.
    "blame-rows": lambda n: "^025441e (A" + " a" * (n // 2) + " 2026-12-04 03:05:28 +0000 1)\n",
    "shortlog-tabs": lambda n: "     2\tA" + " a" * (n // 2) + "\n",
    "mention-runs": lambda n: "@a.b " * (n // 5),
    "world-info-runs": lambda n: "--world_info=" + "eyJ" * (n // 3),
    "cookie-pairs": lambda n: "Cookie: " + "a=b; " * (n // 5),
    "webhook-paths": lambda n: "discord.com/api/webhooks/" * (n // 25),
    "gpustat-users": lambda n: " MB | " + "a(1M)" * (n // 5),
    "pts-rows": lambda n: ("a" * 30 + " pts/0 \n") * (n // 38),
    "ruled-rows": lambda n: "JobID a\n------------ --\n" + "          1 a\n" * (n // 14),
    "encoded-emails": lambda n: "a%40" * (n // 4),
    "syslog-words": lambda n: ("May  6 10:42:01 " + "a" * 300 + " k" * 300 + "\n") * (n // 920),
    "pdsh-w-list": lambda n: "pdsh -w " + "a-1," * (n // 4),
    "mpirun-host-list": lambda n: "mpirun -H " + "a-1:8," * (n // 6),
    "world-info": lambda n: "WORLD INFO DICT: {" + "'a-1': [0], " * (n // 13),
    "ps-rows": lambda n: "USER PID %CPU\n" + "alice 1 0.0 x\n" * (n // 14),
    "squeue-rows": lambda n: "JOBID PARTITION NAME USER\n" + "1 gpu x alice\n" * (n // 14),
    "ls-l-rows": lambda n: "-rw-r--r-- 1 alice alice 1 x\n" * (n // 28),
    "author-name": lambda n: "GIT_AUTHOR_NAME=" + "A" * n,
    "hostname-output": lambda n: "$ hostname\n" * (n // 11),
    "guid-alone": lambda n: "\n0x" * (n // 3),
    "quoted-display-names": lambda n: '"a, b" <a@b.co> ' * (n // 16),
    "bearer-in-bearer": lambda n: "Bearer " + "aaaaaaaBearer " * (n // 14),
}


@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_adversarial_input_is_linear(name: str) -> None:
    """Hostile input costs time in proportion to its size (no catastrophic backtracking): four
    times the input takes well under sixteen times the CPU, which a quadratic pass would.

    A ratio of CPU times in one process, not a time limit: a shared CI box runs everything
    slower, not one size more than the other.
    """

    def cpu(size: int) -> float:
        text = ADVERSARIAL[name](size)
        # A collection of earlier tests' garbage landing in one run is not the detector's cost
        # (wandb-hex once read 0.02 s vs 0.36 s that way; profiled, it scales 4x per 4x).
        gc.collect()
        gc.disable()
        try:
            start = time.process_time()
            result = mask(text)
            spent = time.process_time() - start
        finally:
            gc.enable()
        assert result.text.count("\n") == text.count("\n")
        return spent

    small = min(cpu(100_000) for _ in range(2))
    large = cpu(400_000)
    assert large < 10 * small + 0.5, f"{name}: 100 KB in {small:.3f} s, 400 KB in {large:.3f} s"


# --- the CLI ---------------------------------------------------------------------------------


def _run_cli(argv: list[str], capsysbinary: pytest.CaptureFixture[bytes]) -> tuple[int, bytes, str]:
    from bot.cli import UsageError
    from bot.cli import mask as mask_cli

    parser = argparse.ArgumentParser(prog="denpex")
    mask_cli.register(parser.add_subparsers())
    args = parser.parse_args(argv)
    try:
        code = args.handler(args)
    except UsageError as exc:
        code = 2
        err = str(exc)
    else:
        err = ""
    out, stderr = capsysbinary.readouterr()
    return code, out, err or stderr.decode()


def test_cli_prints_masked_log_and_stats(tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """`denpex mask FILE --stats` streams the masked log to stdout and `kind: n` to stderr."""
    log = tmp_path / "train.log"
    log.write_text("HF_TOKEN=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\npeer 10.0.0.2 and 10.0.0.2\n")
    code, out, err = _run_cli(["mask", str(log), "--stats"], capsysbinary)
    assert code == 0
    assert out == b"HF_TOKEN=<SECRET:hf-token-1>\npeer <IP-1> and <IP-1>\n"
    assert err == "hf-token: 1\nip: 2\n"


def test_cli_reads_gzip_and_invalid_utf8(tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """Gzip is read transparently; undecodable bytes become U+FFFD instead of failing."""
    log = tmp_path / "train.log.gz"
    log.write_bytes(gzip.compress(b"bad \xff byte at 10.0.0.1\n"))
    code, out, _ = _run_cli(["mask", str(log)], capsysbinary)
    assert code == 0
    assert out == "bad \ufffd byte at <IP-1>\n".encode()


def test_cli_streams_in_chunks(tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """A log larger than one read is masked chunk by chunk with consistent placeholders."""
    log = tmp_path / "big.log"
    line = "gpu-node-07:1:1 [0] NCCL INFO Bootstrap : Using eth0:10.20.3.7<0>\n"
    log.write_text("MASTER_ADDR=gpu-node-07\n" + line * 40_000)
    code, out, _ = _run_cli(["mask", str(log)], capsysbinary)
    assert code == 0
    assert out.count(b"<HOST-1>:1:1 [0] NCCL INFO Bootstrap : Using eth0:<IP-1><0>\n") == 40_000


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        (lambda p: None, "no such file"),
        (lambda p: p.mkdir(), "is a directory"),
        (lambda p: p.write_bytes(b""), "empty"),
        (lambda p: p.write_bytes(b"ELF\x00\x01\x02 binary"), "binary"),
    ],
    ids=["missing", "directory", "empty", "binary"],
)
def test_cli_bad_input_is_one_line_usage_error(tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes], setup, message: str) -> None:
    """Missing file, directory, empty or binary input: exit 2 with one line saying why."""
    path = tmp_path / "x.log"
    setup(path)
    code, out, err = _run_cli(["mask", str(path)], capsysbinary)
    assert code == 2
    assert out == b""
    assert message in err and "\n" not in err.strip()


def test_cli_is_registered() -> None:
    """`denpex mask` is one of the CLI's command modules."""
    from bot.cli import COMMAND_MODULES

    assert "bot.cli.mask" in COMMAND_MODULES


# --- every kind, planted in a realistic log, through `denpex mask` ---------------------------


def _nccl_chatter(rng: random.Random, n: int) -> list[str]:
    """torchrun `--tee 3` output: NCCL INFO init chatter behind `[rankN]:` prefixes."""
    lines = []
    for i in range(n):
        rank = rng.randrange(64)
        host, pid = f"gpu-node-{rank // 8:02d}", 40000 + rank
        lines.append(rng.choice((
            f"[rank{rank}]:{host}:{pid}:{pid} [{rank % 8}] NCCL INFO Channel {i % 32:02d}/0 : {rank} -> {(rank + 1) % 64} via P2P/IPC",
            f"[rank{rank}]:{host}:{pid}:{pid + 7} [{rank % 8}] NCCL INFO NET/IB : Using [0]mlx5_{rank % 4}:1/IB ; OOB ib0:10.10.{rank // 8}.{rank % 8 + 10}<0>",
            f"[rank{rank}]:{host}:{pid}:{pid} [{rank % 8}] NCCL INFO comm 0x55d4c1a3b2f0 rank {rank} nranks 64 cudaDev {rank % 8} busId 1b000 commId 0x8a5e0c1f2d3b4a69 - Init COMPLETE",
            f"[rank{rank}]:[I501 10:17:{i % 60:02d}.{i:06d} ProcessGroupNCCL.cpp:1316] [PG 0 Rank {rank}] ProcessGroupNCCL initialized",
            f"[rank{rank}]: step={i} loss={2 + rng.random():.4f} lr=1.9e-05 grad_norm=0.98 tokens_per_sec=12345.6",
        )))  # fmt: skip
    return lines


def _pasted_terminal(rng: random.Random, n: int) -> list[str]:
    """The other family: a Slack paste of a shell session (prompts, env, pip list, tracebacks)."""
    pool = [
        "(llm) $ env | sort", "CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7", "NCCL_IB_GID_INDEX=3", "OMP_NUM_THREADS=8",
        "nvidia-cudnn-cu12         8.9.2.26", "torch                     2.3.1", "Traceback (most recent call last):",
        '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/run.py", line 812, in main',
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:", "```", "exitcode  : -9 (pid: 4242)",
    ]  # fmt: skip
    return [rng.choice(pool) for _ in range(n)]


def _planted_log(rng: random.Random, lines: int = 2000) -> str:
    planted = [line for line, _, _ in (*SECRETS, *PERSONAL)] + list(DECOYS)
    body = _nccl_chatter(rng, lines // 2) + _pasted_terminal(rng, lines - lines // 2 - len(planted))
    rng.shuffle(body)
    for line in planted:
        body.insert(rng.randrange(len(body) + 1), line)
    return "\n".join(body) + "\n"


def test_cli_masks_every_kind_planted_in_a_realistic_log(tmp_path: Path) -> None:
    """Every SECRETS and PERSONAL row, planted among 2,000 lines, is gone from `denpex mask`."""
    text = _planted_log(random.Random(16))
    path = tmp_path / "planted.log"
    path.write_text(text, encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "bot", "mask", "--stats", str(path)], capture_output=True, text=True, timeout=120, check=False
    )
    assert run.returncode == 0, run.stderr
    masked = run.stdout
    assert masked.count("\n") == text.count("\n")
    leaked = [value for _, value, _ in SECRETS if value in masked]
    leaked += [
        value for _, value, _ in PERSONAL if re.search(r"(?<![\w.])" + re.escape(value) + r"(?![\w])", masked)
    ]
    assert not leaked
    placeholders = {p.split(":")[-1].rsplit("-", 1)[0].lstrip("<") for p in PLACEHOLDER.findall(masked)}
    for _, _, kind in (*SECRETS, *PERSONAL):
        assert kind.split(":")[-1] in placeholders, kind
    for line in DECOYS:
        for piece in line.split("\n"):
            assert piece in masked, piece
    assert "NCCL INFO Channel" in masked and "busId 1b000 commId 0x8a5e0c1f2d3b4a69" in masked
    assert re.search(r"^mac: \d+$", run.stderr, re.M) and "Hannah" not in run.stderr


@pytest.mark.parametrize(
    "line, secret",
    [
        ("password_mysql: Xk29fLq7Vw3zPd", "Xk29fLq7Vw3zPd"),
        ("PASSWORD_PROD=Heron2024!mq", "Heron2024!mq"),
        ('{"db_password_2": "Quill77zebra"}', "Quill77zebra"),
    ],
)
def test_a_password_named_for_what_it_opens_is_masked(line: str, secret: str) -> None:
    """The key's last word names the database or stage (`password_mysql`), not the secret."""
    masked = mask(line).text
    assert secret not in masked and "<SECRET:password-1>" in masked


@pytest.mark.parametrize("line", ["password_file: /run/secrets/db_pass", "PASSWORD_MIN_LENGTH=12", "password_reset_url: https://id.example.org/reset"])
def test_a_key_about_a_password_keeps_its_value(line: str) -> None:
    assert "<SECRET" not in mask(line).text


@pytest.mark.parametrize(
    ("text", "value", "kind"),
    [
        ("İstanbul office\n phone: 415-555-0134", "415-555-0134", "PHONE"),
        ("İ EMPLOYEE_ID=E345608", "E345608", "USER"),
    ],
)
def test_a_character_that_lower_cases_to_two_moves_no_labelled_value(text: str, value: str, kind: str) -> None:
    """`İ`.lower() is two characters: rows that find their label in the lowered text and match
    the pattern in the text itself must not read a place off and miss the value."""
    out = Masker().mask(text)
    assert value not in out and f"<{kind}-1>" in out


def test_rocm_s_gpu_node_is_no_host() -> None:
    """ROCm's HSA runtime names the faulting GPU by its node in the topology (`by GPU node-2`):
    the rocm-memory-access-fault entry reads it, and it names no machine."""
    line = "Memory access fault by GPU node-2 (Agent handle: 0x55d0c7a1e2b0) on address 0x7f1c2a000000. Reason: Page not present or supervisor privilege."
    assert Masker().mask(line) == line
    assert "<HOST-1>" in Masker().mask("ssh node-3 failed")
