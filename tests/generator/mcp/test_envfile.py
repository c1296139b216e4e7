"""``.env`` settings: format, precedence, never overriding the environment, one-line errors."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from generator import envfile
from generator.envfile import EnvFileError, load_env_file, parse_env_file


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_format_comments_quotes_export_and_escapes(tmp_path: Path) -> None:
    f = _write(tmp_path / ".env", "\n".join([
        "# a comment",
        "",
        "PLAIN=http://127.0.0.1:5990",
        "export EXPORTED=yes",
        "SPACED =  padded value   # trailing comment",
        "HASH_IN_VALUE=a#b",
        "SINGLE='p#ss word \\n literal'",
        'DOUBLE="line one\\nline two \\"quoted\\""  # comment after quotes',
        "EMPTY=",
        "EQUALS=a=b=c",
    ]))
    assert parse_env_file(f) == {
        "PLAIN": "http://127.0.0.1:5990",
        "EXPORTED": "yes",
        "SPACED": "padded value",
        "HASH_IN_VALUE": "a#b",
        "SINGLE": "p#ss word \\n literal",
        "DOUBLE": 'line one\nline two "quoted"',
        "EMPTY": "",
        "EQUALS": "a=b=c",
    }


@pytest.mark.parametrize(("line", "problem"), [
    ("JUST_A_NAME", "no '='"),
    ("BAD NAME=1", "is not a variable name"),
    ("1ST=1", "is not a variable name"),
    ("SECRET='never closed", "single quote it never closes"),
    ('SECRET="never closed', "double quote it never closes"),
    ("SECRET='x' trailing", "text after the closing quote"),
])  # fmt: skip
def test_a_malformed_line_is_one_error_naming_file_and_line(
    tmp_path: Path, line: str, problem: str
) -> None:
    f = _write(tmp_path / "bad.env", f"# first\nOK=1\n{line}\n")
    with pytest.raises(EnvFileError) as err:
        parse_env_file(f)
    text = str(err.value)
    assert text.startswith(f"{f}:3: ") and problem in text
    assert "\n" not in text
    assert "never closed" not in text and "trailing" not in text  # values are not echoed


def test_never_overrides_what_is_set(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SG_TEST_SET", "from-environment")
    monkeypatch.setenv("SG_TEST_EMPTY", "")
    monkeypatch.delenv("SG_TEST_NEW", raising=False)
    f = _write(tmp_path / "x.env", "SG_TEST_SET=file\nSG_TEST_EMPTY=file\nSG_TEST_NEW=file\n")
    load_env_file(f)
    assert os.environ["SG_TEST_SET"] == "from-environment"
    assert os.environ["SG_TEST_EMPTY"] == ""
    assert os.environ["SG_TEST_NEW"] == "file"
    monkeypatch.delenv("SG_TEST_NEW")


def test_default_files_and_their_precedence(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    work, project = tmp_path / "work", tmp_path / "project"
    work.mkdir()
    project.mkdir()
    named = _write(tmp_path / "named.env", "SG_A=named\n")
    _write(work / ".env", "SG_A=cwd\nSG_B=cwd\n")
    _write(project / ".env", "SG_A=project\nSG_B=project\nSG_C=project\n")
    monkeypatch.setattr(envfile, "_PROJECT_ROOT", project)
    monkeypatch.chdir(work)
    for name in ("SG_A", "SG_B", "SG_C"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SCENARIOGEN_ENV_FILE", str(named))
    load_env_file()
    # The named file first, then ./.env, then the project's: earlier files win.
    assert (os.environ["SG_A"], os.environ["SG_B"], os.environ["SG_C"]) == (
        "named", "cwd", "project")


def test_missing_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(EnvFileError, match="does not exist"):
        load_env_file(tmp_path / "absent.env")
    monkeypatch.setenv("SCENARIOGEN_ENV_FILE", str(tmp_path / "absent.env"))
    with pytest.raises(EnvFileError, match="SCENARIOGEN_ENV_FILE names"):
        load_env_file()
    # Without a named file, absent ./.env and project .env are simply not read.
    monkeypatch.delenv("SCENARIOGEN_ENV_FILE")
    monkeypatch.setattr(envfile, "_PROJECT_ROOT", tmp_path / "nowhere")
    monkeypatch.chdir(tmp_path)
    load_env_file()


def test_not_utf8_and_too_large(tmp_path: Path) -> None:
    latin = tmp_path / "latin.env"
    latin.write_bytes(b"A=caf\xe9\n")
    with pytest.raises(EnvFileError, match="not UTF-8"):
        parse_env_file(latin)
    big = _write(tmp_path / "big.env", "A=" + "x" * envfile.MAX_ENV_FILE_BYTES + "\n")
    with pytest.raises(EnvFileError, match="too large"):
        parse_env_file(big)


def test_the_cli_reads_dot_env_and_reports_a_bad_one_in_one_line(tmp_path: Path) -> None:
    import subprocess
    import sys

    _write(tmp_path / ".env", "# settings\nCOUCHDB_URL http://nowhere\n")
    env = {k: v for k, v in os.environ.items() if k != "SCENARIOGEN_ENV_FILE"}
    done = subprocess.run([sys.executable, "-m", "generator.cli", "tools", "list"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and f"{tmp_path / '.env'}:2: " in lines[0], done.stderr
