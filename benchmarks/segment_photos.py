#!/usr/bin/env python3
"""gridemst-segment beside scikit-image's Felzenszwalb-Huttenlocher segmentation.

On scikit-image's `astronaut` and `coffee` photographs: runs
skimage.segmentation.felzenszwalb with the parameters of scikit-image's own
gallery example (scale 100, sigma 0.5, min_size 50), then gridemst-segment for
each --features (and lab at --lambda 4), once with -k set to the number of
segments Felzenszwalb made and its smallest segment (--min-size 50), once with
-k 24 and the tool's default smallest segment.  Prints a Markdown table
(segments, colour error, whether two named parts of the photo are apart, time)
and writes, per photo, a picture of the photo and some of the segmentations,
each segment filled with its mean colour.

    benchmarks/segment_photos.py --segment ./gridemst-segment --out docs

Needs numpy, PIL and scikit-image (Debian: python3-numpy python3-pil
python3-skimage).  The tool is found through --segment or GEMST_SEGMENT.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from PIL import Image, ImageDraw
import skimage
from skimage.segmentation import felzenszwalb

# Pairs of pixels (x, y) in parts of each photo that a colour segmentation
# should keep apart, named by what they show.
PROBES = {
    "astronaut": ((("flag", (15, 470)), ("suit", (100, 400))), (("suit", (100, 400)), ("wall", (300, 60)))),
    "coffee": ((("saucer", (110, 250)), ("table", (520, 60))), (("cup", (185, 120)), ("coffee", (300, 150)))),
}
# gridemst-segment's features: a name and the options.
FEATURES = (
    ("luma", ["--features", "luma"]),
    ("rgb", ["--features", "rgb"]),
    ("lab", ["--features", "lab"]),
    ("lab, lambda 4", ["--features", "lab", "--lambda", "4"]),
)
FEW = 24  # the second run's -k
# the runs pictured besides the photo and Felzenszwalb: (-k as Felzenszwalb's?, features)
PICTURED = ((True, "rgb"), (False, "luma"), (False, "rgb"), (False, "lab, lambda 4"))
PANEL = 180  # the width of each panel of a picture, in pixels


def read_pgm16(path):
    """The labels of a 16-bit binary PGM written by gridemst-segment."""
    with open(path, "rb") as f:
        magic, size, maxval = f.readline(), f.readline().split(), f.readline()
        if magic.strip() != b"P5" or maxval.strip() != b"65535":
            raise ValueError(f"{path}: not a 16-bit PGM")
        width, height = int(size[0]), int(size[1])
        return np.frombuffer(f.read(), dtype=">u2").reshape(height, width).astype(np.int64)


def mean_colours(photo, labels):
    """Each pixel replaced by the mean colour of its segment (float)."""
    flat = labels.ravel()
    count = np.bincount(flat)
    means = np.stack([np.bincount(flat, photo[..., c].ravel().astype(float)) / count for c in range(3)], axis=1)
    return means[labels]


def colour_error(photo, labels):
    """The root mean square RGB distance between a pixel and its segment's mean colour."""
    diff = photo.astype(float) - mean_colours(photo, labels)
    return float(np.sqrt((diff ** 2).sum(axis=2).mean()))


def apart(labels, probes):
    """For each pair of probes, "a / b: yes" when they are in different segments, else "no"."""
    return ", ".join(f"{a} / {b}: {'yes' if labels[ya, xa] != labels[yb, xb] else 'no'}"
                     for (a, (xa, ya)), (b, (xb, yb)) in probes)


def run_felzenszwalb(photo, repeat):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        labels = felzenszwalb(photo, scale=100, sigma=0.5, min_size=50)
        best = min(best, time.perf_counter() - t0)
    return labels, best * 1e3


def run_segment(tool, path, k, options, workdir):
    """Labels and the tool's --json report of gridemst-segment -k K OPTIONS PATH."""
    labels_path = os.path.join(workdir, "labels.pgm")
    out = subprocess.run([tool, "-k", str(k), "--json", "--labels", labels_path, *options, path],
                         check=True, capture_output=True, text=True)
    return read_pgm16(labels_path), json.loads(out.stdout)


def picture(panels, path):
    """The panels (title, RGB array) side by side, each PANEL wide, a title above each, in
    a palette of 256 colours (a small file)."""
    scaled = []
    for title, image in panels:
        img = Image.fromarray(np.clip(np.rint(image), 0, 255).astype(np.uint8))
        height = round(img.height * PANEL / img.width)
        scaled.append((title, img.resize((PANEL, height), Image.LANCZOS)))
    title_h = 18
    canvas = Image.new("RGB", (PANEL * len(scaled), title_h + scaled[0][1].height), "white")
    draw = ImageDraw.Draw(canvas)
    for i, (title, img) in enumerate(scaled):
        canvas.paste(img, (i * PANEL, title_h))
        draw.text((i * PANEL + 4, 3), title, fill="black")
    canvas.quantize(256, dither=Image.Dither.NONE).save(path, optimize=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--segment", default=os.environ.get("GEMST_SEGMENT", "./gridemst-segment"),
                    help="the gridemst-segment program (default: $GEMST_SEGMENT or ./gridemst-segment)")
    ap.add_argument("--out", help="folder for the pictures (none without it)")
    ap.add_argument("--repeat", type=int, default=3, help="Felzenszwalb's time is the best of this many runs")
    args = ap.parse_args()
    data_dir = os.path.join(os.path.dirname(skimage.__file__), "data")
    if args.out:
        os.makedirs(args.out, exist_ok=True)
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        for name, probes in PROBES.items():
            path = os.path.join(data_dir, name + ".png")
            photo = np.asarray(Image.open(path).convert("RGB"))
            fz, fz_ms = run_felzenszwalb(photo, args.repeat)
            k = int(fz.max()) + 1
            results = [("Felzenszwalb", fz, fz_ms, "")]
            pictured = [("Felzenszwalb", fz)]
            for as_fz in (True, False):
                for title, options in FEATURES:
                    size = ["--min-size", "50"] if as_fz else []
                    labels, report = run_segment(args.segment, path, k if as_fz else FEW, options + size, workdir)
                    note = (f"-k {k if as_fz else FEW}, min size {report['min_size']} px, "
                            f"{report['trees']} tree{'s' if report['trees'] > 1 else ''}")
                    results.append((f"gridemst {title}", labels, report["time_ms"]["total"], note))
                    if (as_fz, title) in PICTURED:
                        pictured.append((f"gridemst {title}", labels))
            for title, labels, ms, note in results:
                rows.append((name, title, int(labels.max()) + 1, colour_error(photo, labels),
                             apart(labels, probes), ms, note))
            if args.out:
                panels = [("photo", photo)] + [(f"{title}: {int(labels.max()) + 1}", mean_colours(photo, labels))
                                               for title, labels in pictured]
                picture(panels, os.path.join(args.out, f"segment-{name}.png"))
    print("| photo | method | segments | colour error | apart | time (ms) | note |")
    print("|---|---|---:|---:|---|---:|---|")
    for name, title, segments, error, sep, ms, note in rows:
        print(f"| {name} | {title} | {segments} | {error:.1f} | {sep} | {ms:.0f} | {note} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
