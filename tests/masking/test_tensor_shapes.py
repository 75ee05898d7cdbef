"""A tensor's shape under a key named `key` is no secret: xformers lists the inputs it found no
operator for as `query : shape=(...)`, `key : shape=(...)`, `value : shape=(...)`, padded into
columns (xformers#1263) or one line each with single blanks, and some front ends print them on
the error's own line."""

from __future__ import annotations

from bot.masking import mask

_PADDED = (
    "NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:\n"
    "     query       : shape=(2, 498, 8, 32) (torch.float16)\n"
    "     key         : shape=(2, 498, 8, 32) (torch.float16)\n"
    "     value       : shape=(2, 498, 8, 32) (torch.float16)\n"
    "     attn_bias   : <class 'torch.Tensor'>\n"
    "     p           : 0.0\n"
    "`fa2F@2.5.7-pt` is not supported because:\n"
    "    attn_bias type is <class 'torch.Tensor'>\n"
)


def test_xformers_input_shapes_stay_in_columns_and_on_one_line() -> None:
    one_line = (
        "NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs: "
        "query : shape=(1, 4096, 1, 512) (torch.float16) key : shape=(1, 4096, 1, 512) (torch.float16) "
        "value : shape=(1, 4096, 1, 512) (torch.float16) attn_bias : <class 'NoneType'> p : 0.0\n"
    )
    single = "query : shape=(1, 2, 1, 40) (torch.float32)\nkey : shape=(1, 2, 1, 40) (torch.float32)\n"
    for text in (_PADDED, one_line, single):
        out = mask(text).text
        assert out == text, out


def test_a_key_whose_value_only_opens_with_a_parenthesis_is_still_masked() -> None:
    secret = "(k9Qz7Lm2Xv8Rt4Wp)"
    out = mask(f"api_key: {secret}\nkey = {secret}\n").text
    assert "k9Qz7Lm2Xv8Rt4Wp" not in out and out.count("<SECRET:") == 2, out


def test_a_secret_that_opens_with_a_number_in_parentheses_is_still_masked() -> None:
    """The shape is the whole value: `(42)` followed by more letters is a password's start."""
    out = mask("DB_PASSWORD=(42)hunter2xyzQ\napi_key: (1)sk9XfAbcdEfgh12345\n").text
    assert "hunter2xyzQ" not in out and "sk9XfAbcdEfgh12345" not in out, out
