"""Training through LNS with straight-through estimators (STE), as LNS-training papers do: the
forward pass computes in LNS (values rounded to the format, products and sums as
``lns.Tensor`` does them), the backward pass treats the rounding as the identity and runs the
float gradient of the same expression on the rounded values. PyTorch only (imported on first
use); tensors on the host or a GPU, where the LNS work then runs too."""

from __future__ import annotations

from typing import Any, Dict

from ._lns_tensor import Tensor

_FUNCS: Dict[str, Any] = {}


def _functions() -> Dict[str, Any]:
    """The autograd Functions, made once torch is at hand."""
    if _FUNCS:
        return _FUNCS
    import torch

    class Quantize(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any, format: str) -> Any:
            return Tensor.from_float(x.detach(), format).to_float(_float_name(x)).to(x.dtype)

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            return grad, None

    class Matmul(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, a: Any, b: Any, format: str) -> Any:
            qa, qb = Tensor.from_float(a.detach(), format), Tensor.from_float(b.detach(), format)
            fa, fb = (q.to_float(_float_name(a)).to(a.dtype) for q in (qa, qb))
            ctx.save_for_backward(fa, fb)
            return (qa @ qb).to_float(_float_name(a)).to(a.dtype)

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            fa, fb = ctx.saved_tensors
            ga = gb = None
            if ctx.needs_input_grad[0]:
                ga = grad @ fb.transpose(-1, -2)
            if ctx.needs_input_grad[1]:
                gb = fa.transpose(-1, -2) @ grad
                # Batch dimensions broadcast in the forward pass sum out here.
                while gb.dim() > fb.dim():
                    gb = gb.sum(0)
            return ga, gb, None

    _FUNCS.update(quantize=Quantize, matmul=Matmul)
    return _FUNCS


def _float_name(x: Any) -> str:
    return "float64" if str(x.dtype) == "torch.float64" else "float32"


def ste_quantize(x: Any, format: str = "lns16") -> Any:
    """``x`` (a torch tensor) rounded to ``format``'s nearest values (``Tensor.from_float``:
    correctly rounded for float32), with the gradient passed straight through."""
    return _functions()["quantize"].apply(x, format)


def ste_matmul(a: Any, b: Any, format: str = "lns16") -> Any:
    """``a @ b`` of 2-D or batched torch tensors (a's batch dimensions may broadcast over a
    2-D b) computed in LNS: both rounded to ``format``, every output a fused LNS sum of exact
    products rounded once (≤ 0.5 + δ ulp, ``Tensor.matmul``), returned as a's float type.
    Backward: the straight-through estimator — the float gradients of a @ b at the rounded
    operands (grad @ bᵀ, aᵀ @ grad)."""
    return _functions()["matmul"].apply(a, b, format)
