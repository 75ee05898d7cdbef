"""The one compiled part: the NCCL prefix scanner (bot/masking/_prefix_split.c).

Optional: where it cannot be built (no C compiler), installing still succeeds and
bot.masking.prefix_hosts uses the regex it mirrors, with the same answers, more slowly.
Everything else about the package is in pyproject.toml.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "bot.masking._prefix_split",
            ["bot/masking/_prefix_split.c"],
            optional=True,
            extra_compile_args=["-O2"],
        )
    ]
)
