"""Who publishes on the Hugging Face Hub and GitHub: organisations, and the few people whose
repositories every ML log loads, against the personal accounts a run's own repositories sit under.

A repository id names its owner (`meta-llama/Llama-3.1-8B`, `tserendorjb9/llama-ft`). The owner
of a model a log loads from the Hub is diagnostic when it is a publisher (which Llama, whose
quantisation) and personal data when it is the user's own account; nothing in the id itself says
which. A login's shape tells only some accounts (`hfischer`, `leila93`); a handle such as
`quantumkiwi623`, `silent-owl` or `parkji` reads as no one's by it. So in the places only a Hub
repository can stand (its URL, the cache's `models--<owner>--<repo>`, the API's errors), an owner
is a person's unless it is a publisher this list knows or its name says it is a group's
(`-ai`, `-nlp`, `Labs`, `Research`, an acronym such as `BAAI`). Masking an organisation no list
knows costs its name, not the diagnosis (the repository's name stays); leaking a login is the
failure the masker exists to prevent.
"""

from __future__ import annotations

import re

# Organisations and publishers on the Hub (models, data sets, spaces), lowercase.
HUB_PUBLISHERS = frozenset(
    (
        # Model makers.
        "meta-llama", "facebook", "facebookai", "meta", "metaresearch", "mistralai", "mistral-community", "google",
        "google-bert", "google-t5", "google-research", "googleai", "deepmind", "microsoft", "openai",
        "openai-community", "anthropic", "qwen", "alibaba-nlp", "alibaba-pai", "deepseek-ai", "01-ai", "thudm",
        "zai-org", "zhipuai", "internlm", "opengvlab", "baichuan-inc", "moonshotai", "minimaxai", "stepfun-ai",
        "tencent", "tencentarc", "bytedance", "bytedance-seed", "xai-org", "cohereforai", "coherelabs", "cohere",
        "nvidia", "ibm", "ibm-granite", "ibm-research", "apple", "amazon", "aws", "salesforce", "intel", "amd",
        "tiiuae", "eleutherai", "bigscience", "bigcode", "bigscience-data", "allenai", "stabilityai", "runwayml",
        "compvis", "black-forest-labs", "databricks", "mosaicml", "togethercomputer", "cerebras", "snowflake",
        "upstage", "ai21labs", "writer", "huggingfaceh4", "huggingfacetb", "huggingfacem4", "huggingfacefw",
        "huggingface", "hf-internal-testing", "trl-internal-testing", "trl-lib", "lighteval", "open-llm-leaderboard",
        "nousresearch", "lmsys", "openbmb", "openchat", "teknium", "cognitivecomputations", "wizardlmteam",
        "wizardlm", "open-orca", "openassistant", "h2oai", "answerdotai", "jinaai", "nomic-ai", "baai", "intfloat",
        "thenlper", "mixedbread-ai", "sentence-transformers", "cross-encoder", "llava-hf", "liuhaotian", "laion",
        "timm", "openlm-research", "tatsu-lab", "princeton-nlp", "stanfordnlp", "stanford-crfm", "stanford-oval",
        "hkunlp", "hkust-nlp", "thu-coai", "fudannlp", "sail", "sail-sg", "lmms-lab", "llamafactory", "hiyouga",
        "unsloth", "thebloke", "bartowski", "lmstudio-community", "mlx-community", "quantfactory", "mradermacher",
        "maziyarpanahi", "neuralmagic", "redhatai", "casperhansen", "turboderp", "ggml-org", "second-state",
        "microsoft-research", "phi", "gpt2", "distilbert", "albert", "bert-base-uncased", "t5", "xlnet",
        "helsinki-nlp", "cardiffnlp", "deepset", "dslim", "nlptown", "uer", "klue", "snunlp", "ckiplab", "beomi",
        "monologg", "j-hartmann", "joeddav", "valhalla", "sshleifer", "philschmid", "ybelkada", "lvwerra",
        "patrickvonplaten", "julien-c", "osanseviero", "nateraw", "mrm8488", "timdettmers", "tloen", "yahma",
        "vicgalle", "garage-baind", "mlabonne", "jondurbin", "ehartford", "lllyasviel", "h94", "xinsir",
        "instantx", "playgroundai", "kandinsky-community", "warp-ai", "damo-vilab", "shi-labs", "openmmlab",
        "pyannote", "speechbrain", "espnet", "facebookresearch", "suno", "coqui", "myshell-ai", "parler-tts",
        "rhasspy", "hexgrad", "fishaudio", "sesame", "kyutai", "distil-whisper", "openai-whisper", "systran",
        "mozilla-foundation", "common-voice", "librispeech_asr", "argilla", "rajpurkar", "glue", "nyu-mll",
        "super_glue", "squad", "wikitext", "c4", "allenai-c4", "cais", "gsm8k", "openai-gsm8k", "hellaswag",
        "rowan", "truthful_qa", "truthfulqa", "winogrande", "ai2_arc", "lukaemon", "tau", "ccdv", "abisee",
        "cnn_dailymail", "xsum", "edinburghnlp", "samsum", "knkarthick", "imdb", "yelp_review_full",
        "ag_news", "fancyzhx", "emotion", "dair-ai", "tweet_eval", "wikipedia", "wikimedia", "bookcorpus",
        "the_pile", "monology", "slimpajama", "refinedweb", "oscar",
        "oscar-corpus", "mc4", "uonlp", "opus", "opus100", "wmt", "facebook-research", "mbpp", "openai_humaneval",
        "codeparrot", "bigcode-data", "the-stack", "m-a-p", "meta-math", "tiger-lab", "berkeley-nest",
        "anthropic-hh", "stanfordnlp-shp", "hf-audio", "hf-vision", "nielsr", "keremberke", "detection-datasets",
        "microsoft-coco", "detectron2", "ultralytics", "ydshieh", "hf-tiny-model-private",
        "llm-jp", "rinna", "cyberagent", "elyza", "stockmark", "pfnet", "tokyotech-llm", "sbintuitions",
        "kakaobrain", "naver", "naver-clova-ix", "skt", "lgai-exaone", "yanolja", "krafton-ai",
        "sarvamai", "ai4bharat", "aisingapore", "sea-lion", "seallms", "vilm", "vinai", "bkai-foundation-models",
        "croissantllm", "bofenghuang", "jpacifico", "occiglot", "malteos", "deutsche-telekom", "leolm",
        "flax-community", "flax-sentence-embeddings", "pytorch", "keras", "keras-io", "tensorflow", "jax",
        "onnx", "onnx-community", "xenova", "optimum", "optimum-intel", "amd-quark", "qualcomm", "arm",
        "huggingfacejs", "gradio", "spaces", "datasets", "models", "docs", "blog", "papers", "collections",
        "settings", "join", "login", "pricing", "enterprise", "organizations", "new", "new-dataset", "new-space",
        "api", "tasks", "learn", "chat", "posts", "search", "changelog", "support", "terms-of-service",
        "privacy", "oauth", "welcome", "notifications", "inference-endpoints", "autotrain",
        "prometheus-eval", "kaist-ai", "ncsoft", "wandb", "comet-ml", "mlfoundations", "apple-mlr",
        "openvla", "lerobot", "physical-intelligence", "nvidia-cosmos", "genmo", "lightricks", "tencent-hunyuan",
        "wan-ai", "rednote-hilab", "baidu", "paddlepaddle", "xlangai", "hkust-audio",
        "inclusionai", "ant-ling", "meituan-longcat", "xiaomimimo", "deepseek", "qwen-community", "llm-blender",
        "openrlhf", "allenai-olmo", "eleutherai-pythia", "pythia", "cerebras-gpt", "facebook-opt", "gpt-j",
        "sentence-transformers-testing", "hf-internal", "internlm-community",
    )
)  # fmt: skip
# Owners on GitHub whose repositories ML logs link, clone and install from: projects'
# organisations and the few maintainers whose personal accounts host a tool everyone installs.
GITHUB_PUBLISHERS = frozenset(
    (
        "huggingface", "pytorch", "pytorch-labs", "meta-pytorch", "nvidia", "nvidia-nemo", "nvidia-merlin",
        "nvlabs", "microsoft", "facebookresearch", "facebookincubator", "facebook", "openai", "google",
        "google-research", "google-deepmind", "deepmind", "googleapis", "googlecloudplatform", "jax-ml",
        "tensorflow", "keras-team", "dao-ailab", "vllm-project", "sgl-project", "eleutherai",
        "bitsandbytes-foundation", "timdettmers", "state-spaces", "deepspeedai", "rocm", "triton-lang",
        "lightning-ai", "wandb", "ray-project", "kubeflow", "kubernetes", "kubernetes-sigs", "ggml-org",
        "ggerganov", "abetlen", "oobabooga", "mlfoundations", "hiyouga", "axolotl-ai-cloud", "openaccess-ai-collective",
        "unslothai", "lm-sys", "tatsu-lab", "stanford-crfm", "allenai", "qwenlm", "meta-llama", "mistralai",
        "deepseek-ai", "thudm", "internlm", "open-mmlab", "ultralytics", "karpathy", "lucidrains", "tloen",
        "artidoro", "lllyasviel", "automatic1111", "comfyanonymous", "turboderp", "casper-hansen", "autogptq",
        "mit-han-lab", "intel", "intel-analytics", "amd", "apple", "ml-explore", "aws", "awslabs", "aws-samples",
        "azure", "azure-samples", "databricks", "mosaicml", "togethercomputer", "stability-ai", "runwayml",
        "compvis", "black-forest-labs", "openmmlab", "python", "pypa", "conda", "conda-forge", "astral-sh",
        "numpy", "scipy", "pandas-dev", "scikit-learn", "matplotlib", "psf", "urllib3", "grpc", "protocolbuffers",
        "open-mpi", "horovod", "mlflow", "optuna", "hydra", "omry", "pallets", "tqdm",
        "docker", "moby", "containerd", "nvidia-container-toolkit", "actions", "github", "dependabot", "gitlab",
        "apache", "rust-lang", "golang", "nodejs", "npm", "microsoft-research", "salesforce", "bigscience-workshop",
        "bigcode-project", "cerebras", "nousresearch", "lm-evaluation-harness", "tensorrt-llm", "pytorch-xla",
        "openxla", "iree-org", "llvm", "onnx", "microsoft-onnx", "onnxruntime", "openvinotoolkit", "intel-extension-for-pytorch",
        "graphcore", "habanaai", "tenstorrent", "cerebras-systems", "sambanova", "coreweave", "lambdal",
        "skypilot-org", "dstackai", "modal-labs", "replicate", "bentoml", "kserve", "triton-inference-server",
        "huggingface-internal", "neuralmagic", "vllm", "flashinfer-ai", "fla-org", "linkedin", "uber",
        "pinterest", "netflix", "twitter", "jupyter", "jupyterhub", "ipython", "jupyterlab", "tensorboardx",
        "lanpa", "wookayin", "nicolargo", "xinntao", "tencent", "tencentarc", "bytedance", "alibaba", "baidu",
        "paddlepaddle", "modelscope", "open-compass", "openbmb", "opengvlab", "haotian-liu", "vision-cair",
        "langchain-ai", "run-llama", "jerryjliu", "chroma-core", "qdrant", "milvus-io", "weaviate",
        "pgvector", "explosion", "nltk", "stanfordnlp", "rasahq", "deepset-ai", "openai-whisper",
        "sanchit-gandhi", "ggml", "mozilla", "mozilla-ocho", "coqui-ai", "suno-ai", "pyannote", "speechbrain",
        "espnet", "nvidia-ai-iot", "dusty-nv", "ray", "anyscale", "prefecthq", "apache-airflow", "dagster-io",
        "iterative", "dvc", "fastai", "answerdotai", "cupy", "numba", "dask", "rapidsai", "pola-rs", "arrow",
        "sgl", "mlc-ai", "xorbitsai", "lmdeploy", "ollama", "localai", "mudler", "nomic-ai", "jina-ai",
        "fairinternal", "nvidia-digital-bio", "deepmind-research", "google-gemini", "googlecolab",
        "colab", "kaggle", "kaggle-docker", "wandb-examples", "comet-ml", "neptune-ai", "clearml", "allegroai",
    )
)  # fmt: skip
# What a group's name ends with on the Hub or GitHub, after a hyphen or run on (`nomic-ai`,
# `hkunlp`, `LAION-AI`, `NousResearch`, `TIGER-Lab`).
_GROUP_WORDS = ("ai", "nlp", "ml", "lab", "labs", "research", "community", "org", "inc", "team", "project", "hq",
                "foundation", "group", "models", "hub", "io", "data", "cv", "llm", "llms", "ailab", "systems",
                "testing", "internal", "official", "bot", "bots", "tech", "corp", "company", "cloud",
                "institute", "university", "uni", "collective", "academy", "sg", "mlr")  # fmt: skip
_GROUP_PARTS = re.compile(r"[-_.]")
# Run on after the head, CamelCase or lowercase: `EleutherAI`, `NousResearch`, `hkunlp`, `llmware`.
_GROUP_TAIL = re.compile(r"(?:AI|NLP|ML|Lab|Labs|Research|Community|Team|Project|Org|Inc|HQ|Hub|Foundation|Group|Models)\Z")
_LOWER_TAILS = ("nlp", "ware", "labs", "research", "community", "foundation", "group", "team", "project")
# A directory a local path opens with, read where a repository id may stand (`from_pretrained(
# "outputs/final")`, `model: checkpoints/best`): no one's account.
LOCAL_DIRS = frozenset(
    (
        "output", "outputs", "out", "checkpoint", "checkpoints", "ckpt", "ckpts", "model", "models", "runs", "run",
        "results", "result", "exp", "exps", "experiment", "experiments", "saved", "saved_models", "save", "saves",
        "logs", "log", "data", "dataset", "datasets", "tmp", "temp", "cache", "work", "workspace", "weights",
        "artifacts", "final", "best", "pretrained", "local", "src", "configs", "config", "mnt", "home", "scratch",
        "ckpt_dir", "output_dir", "out_dir", "save_dir", "model_dir", "lora", "adapters", "adapter", "merged",
        "export", "exports", "dist", "build", "trained", "finetuned", "sft", "dpo", "base", "hf", "hf_models",
        "hub", "downloads", "pretrained_models", "storage", "volumes", "shared", "opt", "root", "users", "user",
    )
)  # fmt: skip
_ACRONYM = re.compile(r"[A-Z0-9]{3,8}(?:-[A-Z0-9][A-Za-z0-9]{1,15})?\Z")
_REPO_OWNER = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9_.-]{0,94}[A-Za-z0-9_])?\Z")


def group_named(owner: str) -> bool:
    """Whether an owner's name says it is a group's: a group word after a hyphen or run on at
    its end (`nomic-ai`, `EleutherAI`, `hkunlp`, `Open-Orca` is no group word: the list has it),
    or an acronym (`BAAI`, `THUDM`, `TIGER-Lab`)."""
    if _ACRONYM.match(owner) is not None and not owner.isdigit():
        return True
    if _GROUP_TAIL.search(owner) is not None and not owner.isupper() and owner[:1].isupper():
        return True
    lowered = owner.lower()
    parts = _GROUP_PARTS.split(lowered)
    if len(parts) > 1 and any(part in _GROUP_WORDS for part in parts):
        return True
    return lowered.endswith(_LOWER_TAILS)


def known_publisher(owner: str) -> bool:
    """Whether the owner is a publisher the lists know (either list: a Hub organisation keeps
    its GitHub organisation's name, `meta-llama`, `deepseek-ai`)."""
    lowered = owner.lower()
    return lowered in HUB_PUBLISHERS or lowered in GITHUB_PUBLISHERS


def unknown_account(owner: str) -> bool:
    """Whether `owner` may be a personal account: an owner's shape, no publisher the lists know,
    no group's name, no local directory's."""
    return (
        _REPO_OWNER.match(owner) is not None
        and not known_publisher(owner)
        and not group_named(owner)
        and owner.lower() not in LOCAL_DIRS
        and not owner.isdigit()
    )


# Family names of East and Central Asia that accounts are cut from with the given names'
# initials (`parkji`, `jhpark`, `kimjh93`, `hpark2031`, `zhangrl62`, `tserendorjb9`): too short or
# too common a syllable for the family-name rules of owners.py, which take a longer name.
SHORT_FAMILIES = frozenset(
    (
        # Korean.
        "park", "kim", "lee", "choi", "jung", "jeong", "kang", "cho", "yoon", "jang", "lim", "han", "seo", "shin",
        "kwon", "hwang", "ahn", "song", "yoo", "hong", "jeon", "moon", "yang", "son", "bae", "baek", "heo", "nam",
        "noh", "kwak", "sung", "cha", "joo", "woo", "min", "ryu", "jin", "eom", "chung", "byun", "chae",
        # Chinese (pinyin).
        "zhang", "wang", "liu", "chen", "zhao", "huang", "zhou", "xu", "sun", "zhu", "gao", "lin", "guo", "luo",
        "liang", "zheng", "xie", "tang", "feng", "dong", "xiao", "cheng", "cao", "yuan", "deng", "shen", "zeng",
        "peng", "jiang", "cai", "jia", "ding", "wei", "xue", "yan", "pan", "dai", "xia", "zhong", "tian", "ren",
        "fang", "yao", "liao", "zou", "xiong", "qiu", "hou", "bai", "meng", "qin", "hao", "kong", "qian", "tao",
        "wu", "hu", "li", "ma", "he", "lu", "su", "ye", "du", "gu", "fu", "yu",
        # Vietnamese.
        "nguyen", "tran", "pham", "hoang", "huynh", "phan", "vu", "vo", "dang", "bui", "do", "ho", "ngo", "duong",
        "ly", "dinh", "truong", "lam", "le",
        # Mongolian (a father's name, as accounts carry it) and Japanese.
        "tserendorj", "batbayar", "gantulga", "enkhbold", "munkhbat", "batbold", "ganbold", "enkhbayar", "erdene",
        "dorj", "otgonbayar", "altangerel", "sukhbaatar", "purevdorj", "davaadorj", "khurelbaatar", "bayarsaikhan",
        "sato", "suzuki", "takahashi", "tanaka", "watanabe", "ito", "yamamoto", "nakamura", "kobayashi", "kato",
        "yoshida", "yamada", "sasaki", "yamaguchi", "matsumoto", "inoue", "kimura", "hayashi", "shimizu", "mori",
        "ikeda", "hashimoto", "ishikawa", "ogawa", "okada", "hasegawa", "murakami", "kondo", "saito", "sakamoto",
    )
)  # fmt: skip
# English words of an initial and such a name, or such a name and two letters (`spark`, `kimono`).
_WORDS_OF_FAMILIES = frozenset(
    ("spark", "sparks", "slim", "shin", "chin", "thin", "whan", "khan", "than", "shan", "swan", "scan", "span", "plan",
     "clan", "bran", "flan", "slang", "slung", "along", "among", "bling", "cling", "fling", "sling", "sting", "swing",
     "thing", "wring", "kimono", "linux", "lines", "linen", "lingo", "login", "logan", "lemon", "lever", "level",
     "legal", "hello", "helix", "heron", "hero", "sunny", "sunset", "songs", "mint", "mind", "mine", "mini", "minor",
     "tango", "tangy", "moony", "moody", "dongle", "fangs", "pandas", "panel", "lime", "limb", "limit", "hanoi",
     "wangle", "jinx", "yanked", "donor", "dorm", "cater", "sushi", "soda", "hoax", "hotel", "lever", "mamba", "malt",
     "huge", "humid", "maven", "magic", "mango", "mania", "manor", "maple", "maze", "major", "maker", "lucky", "lunar",
     "dust", "duty", "dusk", "gulp", "guru", "guess", "yummy", "yugo", "fuse", "fuzz", "hexa", "hero", "lexi")
)  # fmt: skip
# Such names that end English words and file types too (`json`, `admin`): after initials only with a number.
_WORD_ENDINGS = frozenset(("son", "min", "han", "lin", "ren", "ding"))
_CAMEL_PARTS = re.compile(r"[A-Z][a-z]+")
_VOWELS = frozenset("aeiou")
_VOWEL_TUPLE = tuple("aeiou")
_NAME_PARTS = re.compile(r"[-_.]")


def _east_login(lowered: str) -> bool:
    """An East or Central Asian family name with one to three initials before or after it, and
    a number or not (`parkji`, `jhpark`, `kimjh93`, `hpark2031`, `tserendorjb9`)."""
    stem = lowered.rstrip("0123456789")
    numbered = len(stem) < len(lowered)
    if not stem.isalpha() or stem in _WORDS_OF_FAMILIES or len(lowered) - len(stem) > 4:
        return False
    for cut in range(2, len(stem)):
        head, tail = stem[:cut], stem[cut:]
        # A two-letter family name (`li`, `wu`) begins too many words: only with a number.
        if head in SHORT_FAMILIES and 1 <= len(tail) <= 3 and (len(head) >= 3 or numbered) and (numbered or not tail.startswith(_VOWEL_TUPLE)):
            return True
    for cut in (1, 2, 3):
        head, tail = stem[:cut], stem[cut:]
        # Initials before a short name hold no vowel: a syllable there makes a word (`coding`, `violin`).
        if tail not in SHORT_FAMILIES or (_VOWELS.intersection(head) and len(tail) < 5 and not numbered):
            continue
        if len(tail) >= 4 or (len(tail) == 3 and cut >= 2 and tail not in _WORD_ENDINGS) or numbered:
            return True
    return False


def _family_and_given(lowered: str, given_names: frozenset[str]) -> bool:
    """Such a family name and a given name the list knows run together, either way round
    (`kimkenji`, `xumateo`, `kimingrid`), as Korean, Chinese and Vietnamese accounts are named."""
    return lowered.isalpha() and any(
        (lowered[:cut] in SHORT_FAMILIES and lowered[cut:] in given_names and len(lowered) - cut >= 4)
        or (lowered[:cut] in given_names and cut >= 4 and lowered[cut:] in SHORT_FAMILIES and len(lowered) - cut >= 3)
        for cut in range(2, len(lowered) - 2)
    )


# A handle of words alone, as the Hub and GitHub suggest or people pick them (`silent-owl`,
# `amber-lynx`, `brisk-heron-ml` is a team's): two or three lowercase words of three letters or
# more, joined by hyphens.
_WORD_HANDLE = re.compile(r"[a-z]{3,12}(?:-[a-z]{3,12}){1,2}\Z")
# Words an organisation no list knows names itself with (`open-`, `deep-`, `-models`, `-kernels`):
# its field, its stack, what it ships.
_ORG_WORDS = frozenset(
    ("open", "deep", "neural", "machine", "learning", "model", "language", "vision", "speech", "audio", "text",
     "code", "data", "dataset", "datasets", "compute", "tensor", "torch", "pytorch", "jax", "flax", "cuda", "triton",
     "kernel", "kernels", "llama", "mistral", "qwen", "gemma", "bert", "whisper", "diffusion", "stable", "transformer",
     "transformers", "attention", "flash", "fast", "quant", "bench", "eval", "agent", "agents", "robot", "robotics",
     "cloud", "systems", "software", "tools", "awesome", "official", "public", "private", "internal",
     "foundation", "institute", "university", "college", "school", "center", "centre", "company", "works", "studio")
)  # fmt: skip


def word_handle(owner: str) -> bool:
    """Whether an owner no list knows is a handle of words alone (`silent-owl`): a person's
    where only a repository's owner can stand, unless a word says it is an organisation's
    (`open-kernels`, `deep-speech`)."""
    return _WORD_HANDLE.match(owner) is not None and not any(
        part in _ORG_WORDS or part in _GROUP_WORDS for part in owner.split("-")
    )


def personal_signal(owner: str, given_names: frozenset[str], family_names: frozenset[str]) -> bool:
    """Whether an owner no list knows says it is a person's: a number in it (an account, not an
    organisation, numbers itself: `tserendorjb9`, `quantumkiwi623`), a family name of
    SHORT_FAMILIES with initials, or a known given or family name among its parts (`kenji-oyelaran`,
    `hyejin_park`, CamelCase `HannahFischer`, `IlyaGusev`)."""
    lowered = owner.lower()
    if any(c.isdigit() for c in owner) and any(c.isalpha() for c in owner):
        return True
    if _east_login(lowered) or _family_and_given(lowered, given_names):
        return True
    parts = [p for p in _NAME_PARTS.split(owner) if p]
    if len(parts) == 1 and owner[:1].isupper():
        # Run together, a person's name opens with the given name (`HannahFischer`); a
        # project's may end in one (`DeepPavlov`).
        camel = _CAMEL_PARTS.findall(owner)
        return len(camel) >= 2 and "".join(camel) == owner and camel[0].lower() in given_names and all(
            p.lower() not in _GROUP_WORDS for p in camel
        )
    if len(parts) < 2:
        return False
    lowered_parts = [p.lower() for p in parts]
    known = [p for p in lowered_parts if len(p) >= 3 and (p in given_names or p in family_names or p in SHORT_FAMILIES)]
    return bool(known) and all(p.isalpha() and p not in _GROUP_WORDS for p in lowered_parts)
