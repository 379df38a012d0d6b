"""Fine-tuning the shipped encoder's top layers (training time only: torch).

The learned extractor (``knowledge.recommend.learned.tuning``) adapts the small model the
index embeds with. It keeps the lower layers as shipped, so only the top ones are trained
and written out (an ``.npz`` overlay of a few MB, laid back over the packaged
model by :func:`indexer.embedder.apply_overlay`). The frozen layers run once per text; their
outputs are the training inputs, which is what makes a fine-tune take a minute on two cores.
Pooling and normalizing are the query encoder's own, so what is trained here is what the
ONNX export of the tuned model computes at run time.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, cast

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    import torch

    from indexer.embedder import Embedder

__all__ = ["TopLayers", "Frozen", "seeded", "write_overlay"]

MAX_TOKENS = 128

#: One batch after the frozen layers: their hidden states, the attention mask, the texts' rows.
Frozen = tuple["torch.Tensor", "torch.Tensor", list[int]]


@contextmanager
def seeded(seed: int, threads: int) -> Iterator[random.Random]:
    """Torch seeded and held to ``threads`` (restored after): a fine-tune is deterministic on any machine."""
    import torch

    torch.manual_seed(seed)
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        yield random.Random(seed)
    finally:
        torch.set_num_threads(before)


class TopLayers:
    """A private copy of the embedder's transformer whose top ``layers`` layers may learn."""

    def __init__(self, embedder: "Embedder", layers: int) -> None:
        import torch

        self.model: Any = cast(Any, copy.deepcopy(embedder.model[0].auto_model))  # a transformers BertModel
        self.model.eval()
        self.tokenizer = embedder.model.tokenizer
        n_layers = len(self.model.encoder.layer)
        self.tuned = list(range(n_layers - layers, n_layers))
        self.top = torch.nn.ModuleList([self.model.encoder.layer[i] for i in self.tuned])
        self.dim = int(self.model.config.hidden_size)

    def frozen(self, texts: Sequence[str], batch: int) -> list[Frozen]:
        """The texts through the frozen layers, in batches of similar length (order is deterministic)."""
        import torch

        order = sorted(range(len(texts)), key=lambda i: (len(texts[i]), i))
        out: list[Frozen] = []
        for start in range(0, len(order), batch):
            rows = order[start: start + batch]
            enc = self.tokenizer([texts[i] for i in rows], padding=True, truncation=True, max_length=MAX_TOKENS,
                                 return_tensors="pt")
            with torch.no_grad():
                hidden = self.model(**enc, output_hidden_states=True).hidden_states[self.tuned[0]]
            out.append((hidden, enc["attention_mask"], rows))
        return out

    def pooled(self, hidden: "torch.Tensor", mask: "torch.Tensor") -> "torch.Tensor":
        """The top layers, mean pooling over real tokens, unit length: the query encoder's vector."""
        import torch

        additive = (1.0 - mask[:, None, None, :].float()) * torch.finfo(torch.float32).min
        for layer in self.top:
            out = layer(hidden, attention_mask=additive)
            hidden = out[0] if isinstance(out, tuple) else out
        m = mask.unsqueeze(-1).float()
        mean = (hidden * m).sum(1) / m.sum(1).clamp(min=1e-9)
        return torch.nn.functional.normalize(mean, dim=-1)

    def encode(self, texts: Sequence[str], batch: int = 64) -> np.ndarray:
        """Unit vectors of ``texts`` from the tuned model as it is now (rows in the texts' order)."""
        import torch

        self.top.eval()
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        with torch.no_grad():
            for hidden, mask, rows in self.frozen(texts, batch):
                out[rows] = self.pooled(hidden, mask).numpy()
        return out

    def overlay(self) -> dict[str, np.ndarray]:
        """The tuned layers' weights (state-dict name -> fp16): what ships."""
        state = self.model.state_dict()
        return {k: state[k].detach().numpy().astype(np.float16)
                for k in state if any(k.startswith(f"encoder.layer.{i}.") for i in self.tuned)}


def write_overlay(path: Path | IO[bytes], overlay: dict[str, np.ndarray]) -> None:
    """An ``.npz`` whose bytes depend on the tensors only (``np.savez`` stamps the time into the zip)."""
    import io
    import zipfile

    with zipfile.ZipFile(path, "w") as zf:  # stored: fp16 weights do not deflate
        for name in sorted(overlay):
            buf = io.BytesIO()
            np.lib.format.write_array(buf, np.ascontiguousarray(overlay[name]), allow_pickle=False)
            zf.writestr(zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0)), buf.getvalue())
