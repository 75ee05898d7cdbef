"""The compiled parts: the NCCL prefix scanner (bot/masking/_prefix_split.c), masking's
one-byte-per-character view of a piece (bot/masking/_ascii.c) and the matcher's newline count
(bot/matcher/_newlines.c).

All optional: where they cannot be built (no C compiler), installing still succeeds and the
Python they stand in for is used (the regex the scanner mirrors, str.encode, bytes.count),
with the same answers, more slowly. Everything else about the package is in pyproject.toml.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "bot.masking._prefix_split",
            ["bot/masking/_prefix_split.c"],
            optional=True,
            extra_compile_args=["-O2"],
        ),
        Extension(
            "bot.masking._ascii",
            ["bot/masking/_ascii.c"],
            optional=True,
            extra_compile_args=["-O3"],  # the loops are written to be vectorized
        ),
        Extension(
            "bot.matcher._newlines",
            ["bot/matcher/_newlines.c"],
            optional=True,
            extra_compile_args=["-O3"],  # the loop is written to be vectorized
        ),
    ]
)
