"""from_hf_config on hostile configs (issue 33): every failure is the documented ValueError,
short, naming the field; numpy integers are integers; a file is sized before it is read; a model
that cannot be counted at its own default sequence length is refused at load."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mlsysim import hf
from mlsysim.hf import from_hf_config, shipped_config

BASE = shipped_config("llama-2-7b")["config"]


def _deep(n=50_000):
    root = cur = {}
    for _ in range(n):
        cur["x"] = {}
        cur = cur["x"]
    return root


@pytest.mark.parametrize(
    "field", ["rope_scaling", "num_hidden_layers", "hidden_act", "id2label", "layer_types"]
)
def test_deeply_nested_values_never_raise_recursion_error(field):
    """A field that changes no count may be ignored; one that is read is refused by name. Either
    way, never a RecursionError and never a message that echoes the structure."""
    try:
        from_hf_config({**BASE, field: _deep()})
    except ValueError as e:
        assert len(str(e)) < 400
        assert field in str(e) or "nested too deeply" in str(e)


def test_deeply_nested_json_text_is_a_value_error():
    text = json.dumps(BASE)[:-1] + ', "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    with pytest.raises(ValueError, match="nested too deeply"):
        from_hf_config(text)


@pytest.mark.parametrize("field", ["model_type", "hidden_act", "_name_or_path"])
def test_huge_values_are_not_echoed(field):
    huge = "x" * 5_000_000
    cfg = {**BASE, field: huge}
    if field == "_name_or_path":
        assert len(from_hf_config(cfg).name) <= 200
        return
    with pytest.raises(ValueError) as e:
        from_hf_config(cfg)
    assert len(str(e.value)) < 500


def test_numpy_integers_are_integers():
    cfg = {k: (np.int64(v) if type(v) is int else v) for k, v in BASE.items()}
    assert from_hf_config(cfg).params == from_hf_config(BASE).params
    assert from_hf_config(cfg).flops(seq_len=128) == from_hf_config(BASE).flops(seq_len=128)


def test_a_config_file_is_sized_before_it_is_read(tmp_path, monkeypatch):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**BASE, "pad": "x" * (hf.MAX_CONFIG_BYTES + 10)}))
    read = []
    monkeypatch.setattr(type(path), "read_bytes", lambda self: read.append(self) or b"{}")
    with pytest.raises(ValueError, match=r"bytes; a config\.json is at most"):
        from_hf_config(path)
    assert read == []
    with pytest.raises(ValueError, match=r"bytes; a config\.json is at most"):
        from_hf_config("{" + " " * (hf.MAX_CONFIG_BYTES + 1) + "}")


def test_a_model_that_fails_at_its_own_default_length_is_refused_at_load():
    with pytest.raises(
        ValueError, match=r"default sequence length \(config\['max_position_embeddings'\]"
    ):
        from_hf_config({**BASE, "max_position_embeddings": 2**40})
