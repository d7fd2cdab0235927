"""Section 6.8 (Sparse architectures / DLRM): the chapter's numbers that labs/s06_08_dlrm.py
shows, recomputed through mlsysim and the notebook's parts module.

Line numbers (L…) refer to shared/seeds/chapter06_network_architectures.txt; "#n" is the claim row
of shared/seeds/notes/chapter06_digest_primary_edition.md section 3a.
"""

from __future__ import annotations

import math

import pytest

from mlsysim import Q_, Engine, Hardware, Models
from mlsysim import layers as L
from mlsysim.labs.parts import s06_08_dlrm as lab

A100 = Hardware.get("A100")
H100 = Hardware.get("H100")
GB = 1e9


# --------------------------------------------------------------------------------------------
# The capacity wall (L1190, Napkin Math 6.2 L1241-1252, self-check L1910)
# --------------------------------------------------------------------------------------------


def test_napkin_item_table_51_2_gb_is_64_percent_of_an_a100():
    """#109, #110: 100M x 128 x 4 B = 51.2 GB = 64% of an 80 GB A100; two tables are 128%."""
    one = lab.table(lab.NAPKIN_ROWS).weight_bytes("fp32")
    assert one == 51_200_000_000
    cap = A100.memory.capacity.m_as("B")
    assert one / cap == pytest.approx(0.64)
    assert lab.tables_bytes((lab.NAPKIN_ROWS,) * 2, "fp32") / cap == pytest.approx(1.28)
    assert (
        lab.PRED_A.answer == "capacity" and lab.PRED_A.asks == "estimate"
    )  # a sum on the stem's figures
    # what the part shows for the question's two cases: one table fits, the pair does not
    for n, fits in ((1, "ok"), (2, "bad")):
        cards = {c.label: c for c in lab.part_a(100, n, "128", "fp32", "A100").cards}
        assert cards["Tables that fit"].value == "1" and cards["All tables"].status == fits
    # the feedback's "9.4 MB" of dense MLP weights beside the tables (FP32)
    dense = sum(r.layer.params for r in Models.DLRM.rows() if type(r.layer).__name__ == "Dense")
    # bottom 13-512-256-128, top 453-1024-1024-512-256-1, each nn.Linear in x out + out
    shapes = [(13, 512), (512, 256), (256, 128), (453, 1024), (1024, 1024), (1024, 512)]
    shapes += [(512, 256), (256, 1)]
    assert dense == sum(i * o + o for i, o in shapes) == 2_342_273
    assert f"{dense * 4 / 1e6:.1f} MB" == "9.4 MB"
    assert "9.4 MB" in lab.PRED_A.feedback["compute"]
    fb = lab.PRED_A.feedback["capacity"]
    assert "51.2 GB per table, 64%" in fb and "102.4 GB, 128% of 80 GB" in fb


def test_billion_user_table_is_512_gb():
    """#104 (L1190): 10^9 x 128 x 4 B ~ 512 GB."""
    assert L.Embedding(num_embeddings=10**9, embedding_dim=128).weight_bytes("fp32") == 512 * 10**9


def test_self_check_563_2_gb_is_7_04_a100s():
    """#111 (L1910): 51.2 GB + 512 GB = 563.2 GB, 7.04x an 80 GB A100 ('>7x')."""
    total = lab.tables_bytes((lab.ITEM_ROWS, lab.USER_ROWS), "fp32")
    assert total == 563_200_000_000
    assert total / A100.memory.capacity.m_as("B") == pytest.approx(7.04)


def test_row_is_512_contiguous_bytes():
    """#105 (L1196): one 128-wide FP32 row spans 512 bytes."""
    assert lab.table(lab.USER_ROWS).gather_bytes_per_lookup("fp32") == 512


def test_dlrm_lighthouse_100_gb_does_not_fit_an_a100():
    """#107, #114 (Table 6): 25 B embedding parameters x 4 B = 100 GB FP32, past an 80 GB device.
    The engine still prints a latency; feasibility is the separate verdict (self-check L1910)."""
    m = Models.DLRM
    emb = sum(r.layer.params * r.count for r in m.rows() if isinstance(r.layer, L.Embedding))
    assert emb == 25 * 10**9
    p = Engine.solve(m, A100, precision="fp32")
    assert not p.feasible
    assert round(p.over.m_as("GB")) == 20
    assert p.latency_s > 0


# --------------------------------------------------------------------------------------------
# Gathers: bytes without FLOPs, latency alone, bandwidth in aggregate (L1194-1198, Listing 9)
# --------------------------------------------------------------------------------------------


def test_gathers_do_no_multiply_accumulates():
    """L1190 / Table 7: a lookup copies a row, 'almost none' MACs; the engine gives the embedding
    rows 0 FLOPs while they move bytes."""
    p = Engine.solve(Models.DLRM, A100, batch_size=1024, precision="fp32")
    st = lab.stage_totals(p)
    assert st["emb"]["flops"] == 0 and st["emb"]["bytes"] > 0
    assert st["top"]["flops"] > 0


def test_embedding_bag_intensity_tends_to_a_quarter():
    """Listing 9 caption (L1198): one add per 4-byte FP32 value loaded, i.e. ~0.25 FLOP/B."""
    assert lab.pooling_intensity(1) == 0
    assert lab.pooling_intensity(64) == pytest.approx(63 / (4 * 65))
    assert lab.pooling_intensity(10_000) == pytest.approx(0.25, abs=1e-3)


def test_gather_bytes_per_request_do_not_amortize_with_batch():
    """L1117 / Listing 9: batching shares MLP weights, not gathered rows; per-request gather bytes
    are flat in the batch while the MLPs' per-request bytes fall."""
    m = lab.dlrm_with(8)
    per_req = {}
    for b in (1, 1024):
        st = lab.stage_totals(Engine.solve(m, A100, batch_size=b, precision="fp32"))
        per_req[b] = (st["emb"]["bytes"] / b, st["top"]["bytes"] / b)
    assert per_req[1][0] == pytest.approx(per_req[1024][0])
    assert per_req[1024][1] < per_req[1][1] / 50
    assert lab.gather_bytes_per_request(m) == 25 * 8 * 512
    assert lab.PRED_B.answer == "same"


def test_a_lone_lookup_is_latency_bound_a_batch_is_bandwidth_bound():
    """L1194: an isolated lookup is bound by access latency; hundreds of lookups per batch are
    bandwidth-bound. The engine shows it as each gather kernel's fixed cost against its bytes."""
    lone = Engine.solve(Models.DLRM, A100, batch_size=1, precision="fp32")
    bulk = Engine.solve(lab.dlrm_with(64), A100, batch_size=8192, precision="fp32")
    assert {t.bound for t in lone.layers if t.name.startswith("emb")} == {"Dispatch"}
    assert {t.bound for t in bulk.layers if t.name.startswith("emb")} == {"Memory"}


# --------------------------------------------------------------------------------------------
# Shrink, move, shard (L1235-1258, self-check L1910)
# --------------------------------------------------------------------------------------------


def test_int8_tables_are_140_8_gb_still_1_76x_an_a100():
    """PRED_C: INT8 divides 563.2 GB by 4: 140.8 GB, 1.76x the A100, so quantization alone fails;
    at most 56% of the rows fit after hashing."""
    int8 = lab.hashed_bytes(100, "int8")
    assert int8 == 140_800_000_000
    cap = A100.memory.capacity.m_as("B")
    assert int8 / cap == pytest.approx(1.76)
    assert lab.largest_keep_that_fits("int8", cap) == 56
    assert lab.largest_keep_that_fits("fp32", cap) == 14
    # PRED_C: no precision closes a 7x gap (INT8 is 4x at most); only hashing scales arbitrarily
    assert lab.PRED_C.answer == "hash" and lab.hashed_bytes(100, "fp16") > cap


def test_sharding_needs_8_gpus_not_7():
    """PRED_D: ceil(563.2 / 80) = 8 (7 x 80 GB = 560 GB is 3.2 GB short); with 90% usable, still 8."""
    assert lab.shard_plan(8, 100, 1024, 1)["needed"] == 8
    assert 7 * H100.memory.capacity.m_as("B") < lab.tables_bytes(
        (lab.ITEM_ROWS, lab.USER_ROWS), "fp32"
    )
    assert lab.shard_plan(8, 90, 1024, 1)["needed"] == 8


def _expected_remote_partials(n: int, k: int) -> float:
    """Expected partial sums one request sends to its GPU for one table, counted from the
    distribution of distinct shards hit by k uniform lookups (Stirling numbers of the second
    kind): E[distinct] = Σ_j j · S(k, j) · n!/(n−j)! / n^k; the home GPU is one of them with
    chance E[distinct]/n."""
    from math import comb, perm

    def stirling2(k, j):
        return sum((-1) ** i * comb(j, i) * (j - i) ** k for i in range(j + 1)) // math.factorial(j)

    distinct = sum(j * stirling2(k, j) * perm(n, j) for j in range(1, k + 1)) / n**k
    return distinct * (n - 1) / n


def test_sharding_moves_more_bytes_across_nvlink_as_gpus_are_added():
    """PRED_D, row-wise shards (the 512 GB user table outgrows any GPU, so tables cannot be dealt
    out whole): every other GPU holding one of a request's 8 rows of a table sends a partial sum.
    The old model charged (n - 1)/n of the pooled vectors, table-wise traffic for a two-table
    model that cannot be sharded table-wise. A 4,096-request batch, 2 tables × 512 B per partial:
    2 GPUs 4.18 MB, 16 GPUs 25.4 MB, the limit 8 partials per table, 33.6 MB."""
    one = 4096 * 2 * 128 * 4
    for n in (2, 4, 16):
        got = lab.shard_plan(n, 90, 4096, 8)["all_to_all"]
        assert got == pytest.approx(one * _expected_remote_partials(n, 8), rel=1e-12)
    b2, b16 = (lab.shard_plan(n, 90, 4096, 8)["all_to_all"] for n in (2, 16))
    assert round(b2 / 1e6, 2) == 4.18 and round(b16 / 1e6, 1) == 25.4 and b16 < 8 * one
    assert "25.4 MB" in lab.PRED_D.feedback["grow"] and lab.PRED_D.answer == "grow"


def test_interconnect_constants_match_nvidia_h100_datasheet():
    """PCIe Gen5 x16: 128 GB/s both ways = 64 GB/s per direction; NVLink 4: 900 GB/s total per H100."""
    assert Q_(lab.PCIE_GEN5_X16).m_as("GB/s") == 64
    assert Q_(lab.NVLINK4_TOTAL).m_as("GB/s") == 900
    assert lab.nvlink_per_direction().m_as("GB/s") == 450
    assert H100.memory.bandwidth.m_as("GB/s") / Q_(lab.PCIE_GEN5_X16).m_as("GB/s") == pytest.approx(
        52.3, abs=0.1
    )


def test_all_to_all_traffic_is_one_partial_sum_per_remote_shard_hit():
    """L1256: sharded tables turn lookups into all-to-all traffic. One lookup per table: the row
    is remote with chance (n-1)/n; many lookups on many GPUs: up to one partial sum per lookup."""
    pooled = sum(
        lab.table(n).activation_bytes(1024, "fp32") for n in (lab.ITEM_ROWS, lab.USER_ROWS)
    )
    assert pooled == 1024 * 2 * 512
    for n in (1, 2, 8):
        plan = lab.shard_plan(n, 90, 1024, 1)
        assert plan["all_to_all"] == pytest.approx(pooled * (n - 1) / n)
        assert lab.shard_plan(n, 90, 1024, 4)["all_to_all"] == pytest.approx(
            pooled * _expected_remote_partials(n, 4)
        )
    assert lab.shard_plan(4096, 90, 1024, 4)["all_to_all"] < 4 * pooled
    assert lab.shard_plan(1, 90, 1024, 4)["t_nvlink"] == 0
    plan = lab.shard_plan(8, 90, 1024, 1)
    assert plan["rows_moved"] == Q_(1024 * 2 * 512, "B").m_as("B")
    assert plan["t_pcie"] > plan["t_hbm"]
    assert math.isclose(plan["per_device"], 563.2e9 / 8)


# ---------------------------------------------------------------------------------------------
# Review items 3, 7, 13, 14, 21
# ---------------------------------------------------------------------------------------------


def test_past_8_gpus_partial_sums_between_nodes_cross_infiniband():
    """Review item 3: NVLink joins the 8 GPUs of one HGX/DGX H100 node; between nodes each GPU has
    a 400 Gb/s InfiniBand NDR port = 50 GB/s per direction. 16 GPUs, 4,096 requests, 8 lookups:
    25.37 MB all-to-all (above), 1.586 MB received per GPU, of which 7/15 from its own node and
    8/15 = 0.846 MB from the other: 0.846 MB / 50 GB/s = 16.9 µs, + one 5 µs launch = 21.9 µs
    (the NVLink share, 0.740 MB / 450 GB/s = 1.6 µs, runs at the same time)."""
    assert lab.NODE_GPUS == 8 and Q_(lab.INFINIBAND_NDR).m_as("GB/s") == 400 / 8
    p16 = lab.shard_plan(16, 90, 4096, 8)
    per_gpu = p16["all_to_all"] / 16
    far = per_gpu * 8 / 15
    assert (
        p16["inter_node"] == pytest.approx(far * 16) and round(p16["inter_node"] / 1e6, 2) == 13.53
    )
    assert p16["t_exchange"] == pytest.approx(far / 50e9 + 5e-6)
    assert round(p16["t_exchange"] * 1e6, 1) == 21.9
    for n in (2, 8):  # one node: everything on NVLink
        p = lab.shard_plan(n, 90, 4096, 8)
        assert p["inter_node"] == 0 and p["t_exchange"] == p["t_nvlink"]
    v = lab.part_d(16, 90, "4096", 8)
    card = next(c for c in v.cards if c.label == "All-to-all per batch")
    assert "2 nodes" in card.note and "InfiniBand" in card.note and "NVLink" not in card.note
    assert (
        "on NVLink 4 (one 8-GPU node)"
        in next(
            c for c in lab.part_d(8, 90, "4096", 8).cards if c.label == "All-to-all per batch"
        ).note
    )
    assert "exchanged between GPUs" in lab.PRED_D.question and "NVLink" not in lab.PRED_D.question


def test_host_dram_option_states_it_ships_raw_rows():
    """Review item 13: host DRAM ships every gathered row (4,096 x 2 tables x 8 x 512 B = 33.6 MB)
    over PCIe and pools on the GPU; the card says so."""
    v = lab.part_d(8, 90, "4096", 8)
    card = next(c for c in v.cards if c.label == "Host DRAM over PCIe")
    assert lab.shard_plan(8, 90, 4096, 8)["rows_moved"] == 4096 * 2 * 8 * 512 == 33_554_432
    assert "33.6 MB of raw rows" in card.note and "pooled on the GPU" in card.note


def test_pred_b_feedback_quotes_the_gather_shares_the_cards_show():
    """Review item 7: at one lookup per table the gathers are 0.3% of the bytes at batch 1, 23.2% at
    1,024 and 25.1% at 8,192 (25 x 512 B rows + 25 x 512 B pooled outputs = 25.6 KB per request
    against the MLPs' per-request weights and activations); 57.7% at 8 lookups and batch 1,024."""
    got = {}
    for k, b in ((1, "1"), (1, "1024"), (1, "8192"), (8, "1024")):
        got[(k, b)] = next(
            c for c in lab.part_b(b, k, "A100").cards if c.label == "Gathers: share of bytes"
        ).value
    assert got == {
        (1, "1"): "0.3%",
        (1, "1024"): "23.2%",
        (1, "8192"): "25.1%",
        (8, "1024"): "57.7%",
    }
    st = lab.stage_totals(Engine.solve(Models.DLRM, A100, batch_size=1024, precision="fp32"))
    assert st["emb"]["bytes"] / 1024 == 25 * 512 * 2
    fb = lab.PRED_B.feedback["same"]
    assert all(x in fb for x in ("0.3%", "23.2%", "25.1%", "57.7%", "12.8 KB"))
    assert "take over" not in fb
    # review (issue 32) item 1: the stem no longer states the answer; the student reasons from the
    # table size that 1,024 random IDs among 7,812,500 rows almost never repeat
    assert "repeat" not in lab.PRED_B.question and "7.8 million rows" in lab.PRED_B.question
    rows, b = 7_812_500, 1024
    assert lab.LIGHTHOUSE_ROWS == rows == Models.DLRM.rows()[6].layer.num_embeddings
    expected = b - rows * (1 - (1 - 1 / rows) ** b)  # expected lookups landing on a fetched row
    assert lab.repeated_lookups(b, rows) == pytest.approx(expected)
    assert round(expected, 2) == 0.07 and "about 0.07 times" in fb and "0.007%" in fb
    assert "25.6 KB with the pooled output written" in fb


def test_int4_rows_barely_fit_and_int8_does_not():
    """Review item 14: row-wise INT4 stores 128 x 4 bits = 64 B of codes per row plus an FP16 scale
    and bias (4 B): (10^8 + 10^9) x 64 B = 70.4 GB, + 1.1e9 x 4 B = 74.8 GB, 94% of 80 GB."""
    codes = lab.hashed_bytes(100, "int4")
    assert codes == 1_100_000_000 * 64 == 70_400_000_000
    with_scales = codes + 1_100_000_000 * 4
    assert with_scales == 74_800_000_000 and round(with_scales / 80e9, 2) == 0.94
    fb = lab.PRED_C.feedback["int8"]
    assert "70.4 GB" in fb and "74.8 GB" in fb and "Precision has a floor" not in fb


def test_part_b_quotes_the_footprint_beside_the_overflow():
    """Review item 21: 'over by' is footprint - 80 GB; the summary now gives the footprint too."""
    p = Engine.solve(Models.DLRM, A100, batch_size=8192, precision="fp32")
    text = lab.part_b("8192", 1, "A100").summary
    over = p.memory_footprint_bytes - 80e9
    assert p.over.m_as("B") == pytest.approx(over)
    assert (
        f"the footprint is {p.memory_footprint_bytes / 1e9:.1f} GB, over by {over / 1e9:.1f} GB"
        in text
    )
    # where the activations do not change the rounded total, the same number is not said twice
    one = lab.part_b("1", 1, "A100").summary
    assert "take 100.0 GB and the activations" in one and one.count("100.0 GB") == 1


def test_transfers_are_beyond_their_parts_controls():
    """Issue 32 item 2: each transfer's case is one its part cannot show. A: an encoder MLP (Part A
    sizes tables only); B: 100 tables (Part B's DLRM has 25); C: bytes per lookup after hashing
    (Part C shows capacity, and 14% is off its 5% steps); D: 40 GB A100s (Part D runs H100s)."""
    import inspect

    assert set(inspect.signature(lab.part_a).parameters) == {
        "rows",
        "tables",
        "dim",
        "precision",
        "device",
    }
    assert sum(1 for r in Models.DLRM.rows() if type(r.layer).__name__ == "Embedding") == 25
    assert lab.TRANSFER_C_KEEP % lab.C_KEEP.step != 0
    assert lab.D_DEVICE == "H100" and lab.TRANSFER_D_DEVICE == "A100_40GB"


def test_transfer_a_encoder_trades_capacity_for_compute():
    """An MLP 1,024 -> 512 -> 128 has 1,024 x 512 + 512 + 512 x 128 + 128 = 590,464 weights
    (2.36 MB FP32) against the table's 51.2 GB, but 589,824 MACs per lookup against none; on the
    A100 it is slower at batch 1 and at 1,024."""
    one, many = lab.encoder_vs_table(1), lab.encoder_vs_table(1024)
    assert one["encoder_params"] == 1024 * 512 + 512 + 512 * 128 + 128 == 590_464
    assert one["encoder_macs"] == 1024 * 512 + 512 * 128 == 589_824 and one["table_macs"] == 0
    assert one["encoder_s"] > one["table_s"] and many["encoder_s"] > many["table_s"]
    fb = lab.TRANSFER_A.feedback["trade"]
    assert "2.4 MB" in fb and "589,824 MACs" in fb and "51.2 GB" in fb


def test_transfer_b_only_the_bottom_mlp_stays_with_100_tables():
    """100 tables: the bottom MLP (13 dense features) stays at 14.5 KB per request; gathers
    4 x 25.6 KB = 102.4 KB; the interaction's pairs grow from 26 x 25 / 2 = 325 to
    101 x 100 / 2 = 5,050; the top MLP grows too; the gathers' share rises 23.2% -> 36.3%. The
    answer needs no byte count: which stages a table feeds."""
    a, b = lab.gather_share(25), lab.gather_share(100)
    assert b["emb"] == 4 * a["emb"] == 102_400
    assert b["bottom"] == a["bottom"]
    assert all(b[k] > 1.5 * a[k] for k in ("emb", "interaction", "top"))
    assert (round(a["share"], 3), round(b["share"], 3)) == (0.232, 0.363)
    fb = lab.TRANSFER_B.feedback
    assert lab.TRANSFER_B.answer == "bottom"
    assert "325 pairs to 5,050" in fb["bottom"] and "23.2% to 36.3%" in fb["bottom"]
    assert "14.5 KB" in fb["none"]
    # nothing in the stem or options needs an engine byte count
    assert "bytes counted" not in lab.TRANSFER_B.question


def test_transfer_c_hashing_leaves_bytes_per_lookup_alone():
    """Hashing 10^9 user IDs into 14% of the rows leaves one 128 x 4 B = 512 B row per lookup."""
    assert lab.hashed_gather_bytes(14) == lab.hashed_gather_bytes(100) == 512
    assert lab.hashed_bytes(14, "fp32") <= A100.memory.capacity.m_as("B")  # the stem: they fit
    assert "512 B" in lab.TRANSFER_C.feedback["same"]


def test_transfer_d_40gb_shards_move_more():
    """563.2 GB at 90%: ceil(563.2 / 72) = 8 H100s, ceil(563.2 / 36) = 16 A100s 40 GB; partial sums
    per batch 4,096 x 2 x 512 B x (n - 1)(1 - (1 - 1/n)^8): 19.3 MB on 8, 25.4 MB on 16."""
    assert (lab.shards_needed("H100"), lab.shards_needed("A100_40GB")) == (8, 16)

    def ex(n):
        return 4096 * 2 * 512 * (n - 1) * (1 - (1 - 1 / n) ** 8)

    assert round(ex(8) / 1e6, 1) == 19.3 and round(ex(16) / 1e6, 1) == 25.4
    fb = lab.TRANSFER_D.feedback["more"]
    assert "25.4 MB" in fb and "19.3 MB" in fb and "16 shards instead of 8" in fb


def test_zipf_hot_share_and_part_a_shows_popularity_skew():
    """Row 120: popular rows cache, the long tail defeats prefetching. Under Zipf(1) the hottest
    k of n rows take H(k)/H(n) of lookups: for n = 100 M and k = 1 M that is (ln 1e6 + γ + 1/2e6)
    / (ln 1e8 + γ + 1/2e8) = 75.8%, against 1% for the engine's uniform lookups."""
    import math

    from mlsysim.models import zipf_hot_share

    g = 0.5772156649015329
    expect = (math.log(1e6) + g + 0.5e-6) / (math.log(1e8) + g + 0.5e-8)
    assert zipf_hot_share(10**8, 10**6) == pytest.approx(expect, rel=1e-9)
    assert round(100 * expect, 1) == 75.8
    assert zipf_hot_share(10**8, 10**6, 0.0) == pytest.approx(0.01)  # uniform
    assert zipf_hot_share(1000, 10) == pytest.approx(
        math.fsum(1 / k for k in range(1, 11)) / math.fsum(1 / k for k in range(1, 1001))
    )
    assert zipf_hot_share(5, 0) == 0.0 and zipf_hot_share(5, 5) == 1.0
    with pytest.raises(ValueError, match="hot"):
        zipf_hot_share(5, 6)
    with pytest.raises(ValueError, match="exponent"):
        zipf_hot_share(5, 1, -1.0)
    peek = " ".join(lab.part_a(100, 1, "128", "fp32", "A100").peek)
    assert "the hottest 1% (512.0 MB) take 75.8% of lookups, uniform lookups 1.0%" in peek


# ---- Part E: IDs have no geometry; a lookup is a one-hot product ---------------------------------


def test_one_hot_times_the_table_is_the_row():
    """On the 8 × 4 toy table, for every ID: the product, value by value, equals the row; the
    product does 32 MACs. Any two one-hot vectors are √2 apart."""
    import math

    from mlsysim import embedding

    table = embedding.toy_table()
    assert len(set(table)) == 8 and all(-4 <= v <= 4 for row in table for v in row)
    for i in range(8):
        eq = embedding.equivalence(i)
        assert eq.equal and eq.product == table[i] and eq.macs == 32
        assert sum(eq.one_hot) == 1 and eq.one_hot[i] == 1
    assert embedding.one_hot_distance(0, 1) == embedding.one_hot_distance(3, 60) == math.sqrt(2)
    v = lab.part_e(3, "0.5")
    c = {x.label: x for x in v.cards}
    assert c["One-hot × table, item 3"].value == str(table[3]) == "(2, 1, 0, -1)"
    assert "the same values" in c["One-hot × table, item 3"].note


def test_a_lookup_copies_a_row_where_the_product_reads_the_table():
    """100M × 128 FP32: the one-hot product does 12.8 G MACs and reads 51.2 GB of table + 400 MB of
    one-hot vector; the lookup reads 512 B and does none. TRANSFER_E: 10^9 rows -> 516 GB read
    by the product, the lookup still 512 B."""
    from mlsysim import embedding

    c = embedding.cost(10**8)
    assert c.product_macs == 10**8 * 128 == 12_800_000_000
    assert c.product_bytes == 10**8 * 128 * 4 + 10**8 * 4 == 51_600_000_000
    assert c.lookup_macs == 0 and c.lookup_bytes == 128 * 4 == 512
    big = embedding.cost(10**9)
    assert big.lookup_bytes == c.lookup_bytes and big.product_bytes == 10 * c.product_bytes
    assert big.product_macs == 128 * 10**9
    cards = {x.label: x.value for x in lab.part_e(0, "4").cards}
    assert cards["The product's work (100M × 128, FP32)"] == "12.8 billion MACs"
    assert cards["The lookup's work"] == "512 B"
    for key in ("flat", "both", "neither"):
        assert "516.0 GB" in lab.TRANSFER_E.feedback[key]


def test_an_id_fed_as_a_number_is_993_times_nearer_its_numeric_neighbour():
    """PRED_E: w·ID + b puts item 1,000 |w| from 1,001 and 993·|w| from 7, for every w ≠ 0, b."""
    from mlsysim import embedding

    for w in (-1.5, 0.01, 0.5, 4.0, 1e-5, -123.0):
        for b in (0.0, 2.5, -7.0):
            n = embedding.id_as_number(1000, 1001, 7, w, b)
            assert n.ratio == pytest.approx(993, rel=1e-9)
            assert abs(n.out_near - n.out_item) == pytest.approx(abs(w))
    for w in lab.E_WEIGHT.options:
        v = lab.part_e(3, w)
        assert {x.label: x.value for x in v.cards}["ID as a number"] == "993× nearer 1,001 than 7"
    assert "lands 0.5 from 1,001 and 496.5 from 7" in lab.part_e(3, "0.5").summary
    for key in ("forced", "learned", "equal"):
        assert "993×" in lab.PRED_E.feedback[key]


def test_embedding_helpers_reject_bad_input():
    from mlsysim import embedding

    for call in (
        lambda: embedding.one_hot(8, 8),
        lambda: embedding.equivalence(-1),
        lambda: embedding.toy_table(0, 4),
        lambda: embedding.toy_table(8, 65),
        lambda: embedding.cost(0),
        lambda: embedding.cost(10, precision="fp7"),
        lambda: embedding.id_as_number(1000, 1000, 7),
        lambda: embedding.id_as_number(weight=0.0),
        lambda: embedding.id_as_number(weight=float("nan")),
        lambda: embedding.id_as_number(bias=float("inf")),
    ):
        with pytest.raises(ValueError):
            call()
