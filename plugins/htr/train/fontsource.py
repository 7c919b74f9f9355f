"""Handwriting fonts from the npm registry's Fontsource packages (training only).

Debian carries few handwriting faces with Cyrillic glyphs; Google Fonts has a
dozen real ones (Bad Script and Marck Script are Russian school cursive), and
Fontsource publishes each as an npm package of per-script WOFF subsets.
``fetch`` packs every package in ``NPM_FONTS`` with ``npm pack`` (registry
only, nothing else on the network), merges the Latin and Cyrillic subsets of
each style into one TTF with fontTools, and writes them to ``FONT_DIR`` with a
``manifest.json`` of the package versions it got. The fonts are OFL-licensed
and are not part of the repository; inference never needs them.

    python -m plugins.htr.train.fontsource [--dest DIR]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import subprocess
import tarfile
import tempfile
from collections.abc import Sequence
from pathlib import Path

log = logging.getLogger(__name__)

FONT_DIR = Path(os.environ.get("FB_HTR_FONT_DIR", Path.home() / ".cache" / "fusionbrain" / "htr_fonts"))
NPM_MAJOR = 5  # @fontsource/<name>@5: the layout this module reads (files/<name>-<subset>-<weight>-<style>.woff)
SUBSETS = ("latin", "latin-ext", "cyrillic", "cyrillic-ext")

# (package, styles, sampling weight). Cursive and print handwriting first; the
# italic book faces add Cyrillic letter shapes at a low weight. Left out after
# looking at every face: CJK families (their Cyrillic is full-width), all-caps,
# outline and display faces, and faces whose glyphs overflow their bounding box.
NPM_FONTS: tuple[tuple[str, tuple[str, ...], float], ...] = (
    # Cyrillic + Latin handwriting
    ("bad-script", ("400-normal",), 6.0),
    ("marck-script", ("400-normal",), 6.0),
    ("caveat", ("400-normal", "700-normal"), 4.0),
    ("comforter", ("400-normal",), 2.0),
    ("comforter-brush", ("400-normal",), 1.5),
    ("neucha", ("400-normal",), 3.0),
    ("pangolin", ("400-normal",), 2.0),
    ("shantell-sans", ("400-normal", "400-italic"), 1.5),
    ("kurale", ("400-normal",), 1.0),
    ("gabriela", ("400-normal",), 1.0),
    ("lobster", ("400-normal",), 1.0),
    ("pacifico", ("400-normal",), 1.0),
    ("great-vibes", ("400-normal",), 1.5),
    ("playpen-sans", ("400-normal",), 1.5),
    ("balsamiq-sans", ("400-italic",), 0.5),
    ("bellota", ("400-italic",), 0.5),
    ("philosopher", ("400-italic",), 0.7),
    ("cormorant-infant", ("400-italic",), 0.5),
    ("alegreya", ("400-italic",), 0.5),
    ("vollkorn", ("400-italic",), 0.4),
    ("sofia-sans-condensed", ("400-italic",), 0.4),
    ("marmelad", ("400-normal",), 0.4),
    # Latin-only handwriting (English words)
    ("allura", ("400-normal",), 0.7),
    ("annie-use-your-telescope", ("400-normal",), 1.0),
    ("architects-daughter", ("400-normal",), 1.0),
    ("caveat-brush", ("400-normal",), 1.0),
    ("cedarville-cursive", ("400-normal",), 1.0),
    ("coming-soon", ("400-normal",), 1.0),
    ("cookie", ("400-normal",), 0.7),
    ("courgette", ("400-normal",), 0.7),
    ("covered-by-your-grace", ("400-normal",), 1.0),
    ("dawning-of-a-new-day", ("400-normal",), 1.0),
    ("delius", ("400-normal",), 0.7),
    ("gaegu", ("400-normal",), 0.7),
    ("gloria-hallelujah", ("400-normal",), 1.0),
    ("gochi-hand", ("400-normal",), 1.0),
    ("handlee", ("400-normal",), 1.0),
    ("homemade-apple", ("400-normal",), 1.0),
    ("indie-flower", ("400-normal",), 1.0),
    ("itim", ("400-normal",), 0.7),
    ("just-another-hand", ("400-normal",), 1.0),
    ("kalam", ("400-normal",), 1.0),
    ("kite-one", ("400-normal",), 0.7),
    ("la-belle-aurore", ("400-normal",), 1.0),
    ("loved-by-the-king", ("400-normal",), 1.0),
    ("mali", ("400-normal", "400-italic"), 0.7),
    ("mynerve", ("400-normal",), 1.0),
    ("niconne", ("400-normal",), 0.7),
    ("nothing-you-could-do", ("400-normal",), 1.0),
    ("parisienne", ("400-normal",), 0.7),
    ("patrick-hand", ("400-normal",), 1.0),
    ("playball", ("400-normal",), 0.7),
    ("reenie-beanie", ("400-normal",), 1.0),
    ("sacramento", ("400-normal",), 0.7),
    ("satisfy", ("400-normal",), 0.7),
    ("schoolbell", ("400-normal",), 1.0),
    ("shadows-into-light", ("400-normal",), 1.0),
    ("short-stack", ("400-normal",), 0.7),
    ("sriracha", ("400-normal",), 0.7),
    ("sue-ellen-francisco", ("400-normal",), 0.7),
    ("swanky-and-moo-moo", ("400-normal",), 0.7),
    ("tangerine", ("400-normal",), 0.5),
    ("the-nautigal", ("400-normal",), 0.5),
    ("waiting-for-the-sunrise", ("400-normal",), 1.0),
    ("yellowtail", ("400-normal",), 0.7),
    ("zeyada", ("400-normal",), 1.0),
)


def font_weights() -> dict[str, float]:
    """``{ttf file name: sampling weight}`` for the fonts ``fetch`` writes."""
    return {f"{pkg}-{style}.ttf": weight for pkg, styles, weight in NPM_FONTS for style in styles}


def merge_subsets(files: Sequence[Path], out: Path) -> None:
    """One TTF from a style's per-script WOFF subsets (layout tables dropped: they differ per subset)."""
    from fontTools.merge import Merger, Options

    font = Merger(options=Options(drop_tables=["GPOS", "GSUB", "GDEF", "kern"])).merge([str(f) for f in files])
    font.flavor = None
    tmp = out.with_suffix(".tmp")
    font.save(str(tmp))
    tmp.replace(out)


def fetch(dest: Path = FONT_DIR, packages: Sequence[tuple[str, tuple[str, ...], float]] = NPM_FONTS) -> list[Path]:
    """Pack, unpack and merge every package into ``dest``; fonts already there are kept (resumable)."""
    dest.mkdir(parents=True, exist_ok=True)
    manifest_path = dest / "manifest.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    written = []
    for pkg, styles, _ in packages:
        outs = [dest / f"{pkg}-{style}.ttf" for style in styles]
        if all(o.exists() for o in outs):
            written += outs
            continue
        with tempfile.TemporaryDirectory() as tmp:
            spec = f"@fontsource/{pkg}@{NPM_MAJOR}"
            run = subprocess.run(
                ["npm", "pack", "--silent", spec], cwd=tmp, capture_output=True, text=True, check=False, timeout=300
            )
            if run.returncode != 0:
                log.warning("npm pack %s failed: %s", spec, run.stderr.strip().splitlines()[-1:])
                continue
            tgz = next(Path(tmp).glob("*.tgz"))
            with tarfile.open(tgz) as tar:
                tar.extractall(tmp, filter="data")
            files = Path(tmp) / "package" / "files"
            version = json.loads((Path(tmp) / "package" / "package.json").read_text())["version"]
            for style, out in zip(styles, outs, strict=True):
                subsets = [files / f"{pkg}-{s}-{style}.woff" for s in SUBSETS]
                subsets = [s for s in subsets if s.exists()]
                if not subsets:
                    log.warning("%s has no %s subsets", spec, style)
                    continue
                merge_subsets(subsets, out)
                written.append(out)
            manifest[pkg] = version
            log.info("%s %s: %d styles", pkg, version, len(styles))
    manifest_path.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dest", type=Path, default=FONT_DIR)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("fontTools").setLevel(logging.ERROR)
    written = fetch(args.dest)
    print(f"{len(written)} fonts in {args.dest}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
