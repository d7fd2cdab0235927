"""mlsysim.vision beyond the fixture: the layers it added, its refusals, its laziness.

The exact params and FLOPs of every family are asserted against torchvision in
``tests/test_ground_truth.py`` (``tv_*`` entries) and fuzzed by
``tests/reference/fuzz_torchvision.py --vision``; here are the parts a count does not show.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from mlsysim import Models
from mlsysim import layers as L
from mlsysim import vision as V


def test_adaptive_pool_windows_are_torchs():
    """torch's adaptive windows span floor(i n / out) .. ceil((i + 1) n / out): 13 -> 6 gives six
    windows of 3 (they overlap), 1 -> 7 repeats the one value seven times."""
    p = L.AdaptiveAvgPool2d(channels=256, input_size=13, output_size=6)
    assert (p.params, p.macs(), p.output_elements) == (0, 0, 256 * 36)
    assert p.elementwise_flops() == 256 * 18 * 18
    up = L.AdaptiveAvgPool2d(channels=512, input_size=(1, 2), output_size=7)
    # rows: seven windows of the one row; columns: 2 -> 7 gives windows 1,1,1,2,1,1,1 (the fourth
    # straddles both columns)
    assert up.elementwise_flops() == 512 * 7 * 8
    with pytest.raises(ValueError, match="output_size"):
        L.AdaptiveAvgPool2d(channels=4, input_size=8, output_size=0)


def test_scale_training_only_and_once_per_pass():
    s = L.Scale(channels=96, elements=96 * 56 * 56)
    assert (s.params, s.macs(), s.elementwise_flops()) == (96, 0, 96 * 56 * 56)
    head = L.Dense(in_features=768, out_features=1000)
    t = L.TrainingOnly(layer=head)
    assert t.params == head.params == 769_000
    assert (t.macs(4), t.weight_bytes(), t.kernels, t.bytes_moved(4)) == (0, 0, 0, 0)
    mlp = L.Dense(in_features=2, out_features=512, tokens=225)
    once = L.OncePerPass(layer=mlp)
    assert once.macs(1) == once.macs(64) == mlp.macs(1) == 225 * 2 * 512
    assert once.bytes_moved(64) == mlp.bytes_moved(1)
    with pytest.raises(ValueError, match="batch"):
        once.macs(0)


def test_swin_v2_position_mlp_runs_once_per_batch():
    """Swin v2 computes its relative-position bias with an MLP over the window's fixed
    coordinates: one pass per forward, so two images cost twice as much less that MLP."""
    m = V.swin("t", v2=True)
    cpb = sum(r.layer.flops() * r.count for r in m.rows() if isinstance(r.layer, L.OncePerPass))
    heads = {1: 3, 2: 6, 3: 12, 4: 24}
    blocks = {1: 2, 2: 2, 3: 6, 4: 2}
    expect = sum(2 * blocks[s] * 225 * (2 * 512 + 512 * heads[s]) for s in heads)
    assert cpb == expect
    assert m.flops(2) == 2 * m.flops(1) - cpb
    assert V.swin("t").flops(2) == 2 * V.swin("t").flops(1)  # v1: a table lookup, no MLP


def test_inception_aux_head_is_params_only():
    on, off = V.inception_v3(), V.inception_v3(aux_logits=False)
    assert on.params - off.params == 3_326_696
    assert on.flops() == off.flops()
    assert sum(r.layer.kernels for r in on.rows()) == sum(r.layer.kernels for r in off.rows())


def test_classifier_is_fixed_size_at_any_input():
    """AlexNet's 6x6 and VGG's 7x7 adaptive pools: the params do not depend on the image."""
    assert V.alexnet(63).params == V.alexnet(500).params == 61_100_840
    assert V.vgg(16, False, 32).params == V.vgg(16).params == 138_357_544


@pytest.mark.parametrize(
    "call,name",
    [
        (lambda: V.vit("b_16", image_size=200), "image_size"),
        (lambda: V.vit("b_17"), "variant"),
        (lambda: V.vgg(12), "depth"),
        (lambda: V.alexnet(62), "input_size"),
        (lambda: V.inception_v3((299, 74)), "input_size"),
        (lambda: V.convnext("huge"), "variant"),
        (lambda: V.efficientnet("b8"), "variant"),
        (lambda: V.mobilenet_v3("large", width_mult=2.5), "width_mult"),
        (lambda: V.swin("t", v2="yes"), "v2"),
        (lambda: V.regnet("y_2gf"), "variant"),
        (lambda: V.swin("t", num_classes=0), "num_classes"),
    ],
)
def test_bad_arguments_are_refused_by_name(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_vit_refusal_suggests_a_valid_size():
    with pytest.raises(ValueError, match="multiple of vit_b_16's patch size 16.*e.g. 192"):
        V.vit("b_16", image_size=200)


def test_presets_are_torchvision_defaults_and_built_lazily():
    assert (Models.VGG16.params, Models.VGG16.flops()) == (138_357_544, 30_940_528_640)
    assert Models.ViTB16.params == 86_567_656 and Models.InceptionV3.params == 27_161_264
    code = (
        "import sys, mlsysim; from mlsysim import Models; Models.ResNet50.params; "
        "assert 'mlsysim.vision' not in sys.modules; Models.AlexNet.params; "
        "assert 'mlsysim.vision' in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_rows_name_torchvision_modules():
    names = [r.name for r in V.vit("b_16").rows()]
    assert names[:4] == ["conv_proj", "class_token", "encoder.pos_embedding", "encoder.pos_add"]
    assert "encoder.layers.self_attention.sdpa" in names and names[-1] == "heads.head"
    rows = {r.name: r for r in V.vit("b_16").rows()}
    assert rows["encoder.layers.self_attention.sdpa"].count == 12


def test_ceil_mode_pool_is_torchs():
    """GoogLeNet's pools round up: 112 -> 56 (3/2), 7 -> 4 (2/2), but a window never starts in
    the right padding (torch drops it): 5 with 2/3 and padding 1 gives 2, not 3."""

    def out(n, k, s, p=0):
        return L.Pool2d(
            channels=1, input_size=n, kernel_size=k, stride=s, padding=p, ceil_mode=True
        ).output_size[0]

    assert (out(112, 3, 2), out(7, 2, 2), out(14, 3, 1, 1), out(5, 2, 3, 1)) == (56, 4, 14, 2)
    assert L.Pool2d(channels=1, input_size=7, kernel_size=2, stride=2).output_size == (3, 3)
    assert V.googlenet(aux_logits=False).params == 6_624_904


def test_engine_charges_swin_v2s_position_mlp_per_image_as_documented():
    """The engine is linear in the batch: at batch 4 it counts the once-per-pass MLP four times
    (OncePerPass's docstring says so); at batch 1 it agrees with the model exactly."""
    from mlsysim import Engine

    m = V.swin("t", v2=True)
    cpb = sum(r.layer.flops() * r.count for r in m.rows() if isinstance(r.layer, L.OncePerPass))
    assert Engine.solve(m, "H100", batch_size=1).flops == m.flops(1)
    assert Engine.solve(m, "H100", batch_size=4).flops == m.flops(4) + 3 * cpb
