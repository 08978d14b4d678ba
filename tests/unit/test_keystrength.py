"""The key-strength rule: random 256-bit keys pass, keys a person would choose or a short random
one do not, and the refusal says how to make a good key, in one line."""

from __future__ import annotations

import secrets
import uuid

import pytest
from pydantic import SecretStr

from agentrt.config import ApiKey, GatewaySettings
from agentrt.config.keystrength import MIN_KEY_BITS, estimated_bits, new_key, weakness
from tests.keys import key_for


def test_random_256_bit_keys_pass_with_room_to_spare() -> None:
    for make in (new_key, lambda: secrets.token_hex(32), lambda: secrets.token_urlsafe(32)):
        # zxcvbn reads a short word here and there in random characters (2,000 draws: never
        # under 150 bits for 43 URL-safe characters).
        assert min(estimated_bits(make()) for _ in range(300)) > MIN_KEY_BITS + 16
    assert len(new_key()) == 43 and new_key() != new_key()


@pytest.mark.parametrize(
    "key",
    [
        "",
        "a" * 200,  # one character, however long
        "alice-key-0123456789",  # a name, a word and a run of digits
        "alice-fuzzing-key-0123456789",
        "s3cret-ci-key",
        "correct-horse-battery-staple",
        "password" * 12,  # a repeat adds nothing
        "alice-key-0123456789" * 6,
        "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ",  # runs add nothing
        "ab" * 100,
        str(uuid.UUID(int=0x1234_5678_9ABC_4DEF_8123_4567_89AB_CDEF)),  # a UUID: at most 122 bits
        "0123456789abcdef" * 2 + "fedcba9876543210",
        "a" * 2000 + new_key(),  # judged by its first characters only
        # Long, but words, a keyboard walk, a pangram: zxcvbn's patterns (rule 5).
        "acme-production-gateway-api-key-for-the-billing-team-2024",
        "qwertyuiopasdfghjklzxcvbnm1234567890QWERTYUIOP",
        "thequickbrownfoxjumpsoverthelazydog0123456789",
        "correct-horse-battery-staple-correct-horse-battery-staple-2024",
    ],
)
def test_keys_a_person_would_choose_are_refused(key: str) -> None:
    assert estimated_bits(key) < MIN_KEY_BITS, key


def test_short_random_keys_are_refused_too() -> None:
    # 128 random bits as 32 hex digits, or 96 as base64, leave no margin the estimate can see.
    assert max(estimated_bits(secrets.token_hex(16)) for _ in range(300)) < MIN_KEY_BITS
    assert max(estimated_bits(str(uuid.uuid4())) for _ in range(300)) < MIN_KEY_BITS
    assert max(estimated_bits(secrets.token_urlsafe(12)) for _ in range(300)) < MIN_KEY_BITS


def test_the_refusal_is_one_line_naming_the_key_and_how_to_make_one() -> None:
    problem = weakness("ci", "s3cret-ci-key")
    assert problem is not None and "\n" not in problem
    assert problem.startswith("key 'ci' is too weak: about 23 bits of entropy")
    assert "128 needed" in problem and "s3cret" not in problem
    assert "agentrt keys new" in problem
    assert 'python -c "import secrets; print(secrets.token_urlsafe(32))"' in problem
    assert weakness("ci", new_key()) is None


def test_the_settings_refuse_a_weak_key_wherever_it_is_given(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match="key 'ci' is too weak"):
        GatewaySettings(api_keys={"ci": SecretStr("s3cret-ci-key")})
    with pytest.raises(ValueError, match="key 'ops' is too weak"):
        GatewaySettings(api_keys={"ops": ApiKey(key=SecretStr("ops-key-0123456789"), roles=["admin"])})
    keys = tmp_path / "keys.json"
    keys.write_text('{"dan": "dan-key-1"}')
    with pytest.raises(ValueError, match="api_keys_file: key 'dan' is too weak"):
        GatewaySettings(api_keys_file=keys)
    keys.write_text(f'{{"dan": "{key_for("dan")}"}}')
    assert GatewaySettings(api_keys_file=keys, api_keys={"ci": SecretStr(new_key())}).principals()
