"""Credentials as a second team's corpus of twelve log families placed them (round 27).

A flag's value as the next item of an argument list (`docker inspect`'s `Cmd`, `kubectl
describe pod`'s `Args:` column, a pod spec's list, a CalledProcessError's command), a key as a
call's first argument (Spark's `conf.set`), the password options and positional passwords of
keytool, openssl, MinIO's `mc`, Poetry, twine, MongoDB's tools, htpasswd, rabbitmqctl and the
secret stores' CLIs, npm's `config set`, a service account pretty-printed by pprint, Kubeflow's
session cookie, and the prefixed tokens of Stripe webhooks, Buildkite, Slack clients and JFrog.
All values are synthetic, shaped as the real ones.
"""

from __future__ import annotations

import pprint

from bot.masking import mask

_OPAQUE = "tv7zZThfrTC3mHvkepMr7qCHV6j_o7Ts7fKJX1RG"
_PASSWORD = "Quartz7731#fake"
_DIGEST = "sha256:0c0ffee5a3d94c3b8e6f1a2b7d9e4c5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d"


def _masked(text: str, *values: str) -> str:
    out = mask(text).text
    for value in values:
        assert value not in out, (value, out)
    assert len(out.splitlines()) == len(text.splitlines()), out
    return out


def test_docker_inspect_masks_the_item_after_a_secret_flag_and_keeps_other_items() -> None:
    text = "\n".join(
        [
            '        "Image": "' + _DIGEST + '",',
            '        "Config": {',
            '            "Cmd": [',
            '                "python",',
            '                "serve.py",',
            '                "--api-key",',
            f'                "{_OPAQUE}",',
            '                "--max-tokens",',
            '                "4096"',
            "            ],",
        ]
    )
    out = _masked(text, _OPAQUE)
    assert '"--api-key",' in out and '"<SECRET:api-key-1>",' in out, out
    assert '"4096"' in out and _DIGEST in out, out


def test_kubectl_describe_args_column_masks_the_line_under_a_password_flag() -> None:
    text = "\n".join(
        [
            "    Args:",
            "      --db-password",
            f"      {_PASSWORD}",
            "      --epochs",
            "      3",
            "      --password-file",
            "      /etc/secrets/pw",
        ]
    )
    out = _masked(text, _PASSWORD)
    assert "      <SECRET:password-1>" in out, out
    assert "      3" in out and "      /etc/secrets/pw" in out, out


def test_pod_spec_args_list_masks_the_item_after_a_secret_flag() -> None:
    text = "\n".join(["  - args:", "    - --admin-password", f"    - {_PASSWORD}", "    - --epochs", '    - "3"'])
    out = _masked(text, _PASSWORD)
    assert "    - <SECRET:password-1>" in out and '    - "3"' in out, out


def test_a_failed_commands_argument_list_masks_the_value_after_its_flag() -> None:
    text = (
        "subprocess.CalledProcessError: Command '['python', 'eval.py', '--api-key', "
        f"'{_OPAQUE}', '--limit', '100', '--token', '-v']' returned non-zero exit status 1.\n"
    )
    out = _masked(text, _OPAQUE)
    assert "'--api-key', '<SECRET:api-key-1>', '--limit', '100'" in out, out
    assert "'--token', '-v'" in out and "returned non-zero exit status 1." in out, out


def test_spark_conf_set_masks_the_value_of_a_secret_config_key() -> None:
    secret = "wJ4lrXUtnFEMIfakeK7MDENGbPxRfiCYfakeKEY9"
    text = "\n".join(
        [
            f"spark.conf.set('spark.hadoop.fs.s3a.secret.key', '{secret}')",
            f'    .config("spark.hadoop.fs.s3a.secret.key", "{_PASSWORD}") \\',
            "Py4JJavaError: An error occurred while calling o412.parquet.",
        ]
    )
    out = _masked(text, secret, _PASSWORD)
    assert "Py4JJavaError: An error occurred while calling o412.parquet." in out, out


def test_keystore_and_openssl_pass_phrases_are_masked() -> None:
    text = "\n".join(
        [
            "$ openssl pkcs12 -export -in cert.pem -inkey key.pem -out bundle.p12 -passout pass:maple-tundra-95",
            "$ keytool -importkeystore -srckeystore bundle.p12 -destkeystore kafka.jks -deststorepass harbor-granite-50 "
            "-srcstorepass maple-tundra-95 -noprompt",
            "Importing keystore bundle.p12 to kafka.jks...",
        ]
    )
    out = _masked(text, "maple-tundra-95", "harbor-granite-50")
    assert "-passout pass:<SECRET:password-1>" in out and "-srcstorepass <SECRET:password-1>" in out, out
    assert "Importing keystore bundle.p12 to kafka.jks..." in out, out


def test_positional_and_short_option_passwords_of_client_tools_are_masked() -> None:
    lines = {
        "$ mc alias set ckpt http://minio.ml.svc:9000 minioadmin Mc7fakeSecretKey1": "Mc7fakeSecretKey1",
        "$ poetry config http-basic.acme deploy Po7-fake-Pass": "Po7-fake-Pass",
        "$ twine upload --repository-url https://pypi.acme-internal.net/ -u deploy -p Tw7fakePass dist/*": "Tw7fakePass",
        '$ mongosh "mongodb://mongo.ml.svc:27017" -u ml -p Mg7fakePass': "Mg7fakePass",
        "$ htpasswd -bc /etc/nginx/.htpasswd admin Ht7fakePass": "Ht7fakePass",
        "$ rabbitmqctl add_user ml Rb7fakePass": "Rb7fakePass",
        '$ gh secret set DB_PASSWORD --body "Gh7fakePass"': "Gh7fakePass",
        "$ az keyvault secret set --vault-name acme-kv --name db-password --value Az7fakePass": "Az7fakePass",
        "$ aws ssm put-parameter --name /ml/db-password --value Ss7fakePass --type SecureString": "Ss7fakePass",
        "$ npm config set //registry.npmjs.org/:_authToken Np7fakeAuthTokenValue0": "Np7fakeAuthTokenValue0",
    }
    out = _masked("\n".join(lines) + "\n", *lines.values())
    assert "$ mc alias set ckpt http://minio.ml.svc:9000 minioadmin <SECRET:" in out, out


def test_an_ssm_parameter_that_is_no_secure_string_keeps_its_value() -> None:
    text = "$ aws ssm put-parameter --name /ml/data-root --value /lustre/fsw/datasets --type String\n"
    assert mask(text).text == text


def test_a_service_account_pretty_printed_by_pprint_loses_its_key_body() -> None:
    body = ["MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQCfake0Lm2pZr9Tv4Wk", "Ab3dEf6gHj9kLm2nPq5sFAKE8rT2vLx9pWm4KcAb3dEf6gHj9kLm2nPq5sZq8rT2vL"]
    info = {
        "type": "service_account",
        "project_id": "acme-ml-prod",
        "private_key": "-----BEGIN PRIVATE KEY-----\n" + "\n".join(body) + "\n-----END PRIVATE KEY-----\n",
        "client_id": "104242424242424242424",
    }
    text = pprint.pformat(info) + "\n"
    out = _masked(text, *body)
    assert "'-----BEGIN PRIVATE KEY-----\\n'" in out and "'-----END PRIVATE KEY-----\\n'" in out, out
    assert "'<SECRET:private-key-1>\\n'" in out, out


def test_kubeflow_session_cookie_argument_is_masked() -> None:
    cookie = "MTcwMTk0NTY3OHxOd3dBTkZaSE5GUk5Xa0pLV2xaWlZWUk5XVlpSV0ZsTFdFdE5VVGRSVlVKT1dGSkZOVU5TVGsxT1NGbEhWRUU9fGFakeSig"
    text = f"client = kfp.Client(host='https://kubeflow.acme-internal.net/pipeline', cookies='authservice_session={cookie}')\n"
    out = _masked(text, cookie)
    assert "cookies='authservice_session=<SECRET:cookie-1>')" in out, out


def test_prefixed_tokens_of_stripe_webhooks_buildkite_slack_clients_and_jfrog() -> None:
    values = {
        "Ready! Your webhook signing secret is whsec_Fake7fakeFake7fakeFake7fakeFake7fak (^C to quit)": "whsec_Fake7fakeFake7fakeFake7fakeFake7fak",
        "export BUILDKITE_API_TOKEN=bkua_0f3a8e3d9b4c4a1e8f2d7c6b5a4938270f3a8e3d": "bkua_0f3a8e3d9b4c4a1e8f2d7c6b5a4938270f3a8e3d",
        "token: xoxc-1234567890-1234567890123-1234567890123-0fake0fake0fake0fake0fake0fake0fake0fake0fake0fake0fake": "xoxc-1234567890-1234567890123-1234567890123-0fake0fake0fake0fake0fake0fake0fake0fake0fake0fake0fake",
        "X-JFrog-Art-Api: AKCp8kQ2mN4pQ6rS8tU0vW1xY3zA5bC7dE9fG2hJ4kL6mN8pQ0rS2tU4vW6xY8zA1bC3dE5fg": "AKCp8kQ2mN4pQ6rS8tU0vW1xY3zA5bC7dE9fG2hJ4kL6mN8pQ0rS2tU4vW6xY8zA1bC3dE5fg",
    }
    out = _masked("\n".join(values) + "\n", *values.values())
    assert "Ready! Your webhook signing secret is <SECRET:stripe-key-1> (^C to quit)" in out, out


def test_an_ssh_public_key_with_a_u_directory_shape_inside_stays_whole() -> None:
    key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI/q5yVZDt9//u/C8JFxULW9dcMDU2SQRzpRlX0I2MJvt"
    text = f"$ cat ~/.ssh/id_ed25519.pub\n{key} ci@build\n"
    assert key in mask(text).text
