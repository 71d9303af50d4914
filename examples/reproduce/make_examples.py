"""Write the tiny example of ``rankbook reproduce``: a qrels file and four runs.

Six topics with twelve judged documents each. The original baseline scores relevant documents
a little higher than the rest, the original advanced system much higher; the reproductions
rerun both on the same topics with other random noise, and the
reproduced advanced system gains a little less.
The original advanced run carries an ``ir_metadata`` block. Run from the repository root:

    python examples/reproduce/make_examples.py
    rankbook reproduce --orig-baseline examples/reproduce/orig_baseline.txt \\
        --orig-advanced examples/reproduce/orig_advanced.txt \\
        --rep-baseline examples/reproduce/rep_baseline.txt \\
        --rep-advanced examples/reproduce/rep_advanced.txt \\
        --qrels examples/reproduce/qrels.txt --plot plane.png
"""

from pathlib import Path

import numpy as np

from rankbook import repro

HERE = Path(__file__).resolve().parent
rng = np.random.default_rng(29)
qrels = {str(t): {f"doc{t}-{i:02d}": int(r) for i, r in
                  enumerate(rng.choice([0, 0, 0, 1, 2], size=12))} for t in range(301, 307)}


def run(shift, seed):
    noise = np.random.default_rng(seed)
    return {t: {d: round(float(rel * shift + noise.random()), 3) for d, rel in docs.items()}
            for t, docs in qrels.items()}


(HERE / "qrels.txt").write_text("".join(f"{t} 0 {d} {r}\n" for t, docs in qrels.items()
                                        for d, r in docs.items()))
meta = {"tag": "orig_advanced", "research goal": {"description": "toy advanced system"},
        "method": {"retrieval": {"name": "relevance-boosted scores", "shift": "0.8"}}}
repro.write_run(HERE / "orig_baseline.txt", run(0.3, 1), tag="orig_baseline")
repro.write_run(HERE / "orig_advanced.txt", run(0.8, 2), meta, tag="orig_advanced")
repro.write_run(HERE / "rep_baseline.txt", run(0.3, 3), tag="rep_baseline")
repro.write_run(HERE / "rep_advanced.txt", run(0.7, 4), tag="rep_advanced")
