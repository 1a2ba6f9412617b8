"""calls.py: the default call of each op the ground truth runs.

Each op is spelled as ops.list spells it. Its call is the one a user writes
first: dense, strided float32 CPU tensors of typical shapes, only the
required arguments given (defaults for the rest; where one place takes a
number or a Tensor, as torch.pow's exponent, the kind the docstring's first
example passes), modules built with their
default constructor arguments beyond the required sizes, in training mode
(the default). `setup` makes the inputs (run before the profiler starts, with
torch.manual_seed(0)); `call` is the expression that is profiled.

Fields of Call (tests/groundtruth/README.md has the whole format):
  op         the op, as ops.list spells it
  setup      Python statements making the inputs (names: torch, nn, F)
  call       the expression profiled
  family     what kind of op it is (for the report)
  composite  the native_functions.yaml entry the call reaches, when that
             entry is CompositeImplicitAutograd (no dispatch table and no
             structured_delegate, or a CompositeImplicitAutograd key) at
             both 1.13.1 and 2.6.0; checked by `calls.py --check SOURCE`
  since      the first release that has the op ("2.0"), when 1.13.1 lacks it
  inplace    the input an in-place op writes: for the call with gradients it
             is replaced by a clone (a leaf that requires grad cannot be
             written in place); the clone's node is not the op's
  nograd     floating inputs that must not require grad (buffers such as
             running statistics)
  note       why the call is the way it is, when that is not obvious

Run as a script: `calls.py` prints the op names, one a line;
`calls.py --check SOURCE [OPS_LIST]` checks that every op of OPS_LIST
(default: the repository's ops.list) has a call, and each composite claim
against the native_functions.yaml of v1.13.1 and v2.6.0 in the git checkout
SOURCE and against the recordings in data/ (the entry named is one the call
dispatches first).
"""

import json
import os
import subprocess
import sys


class Call:
    def __init__(self, op, setup, call, family, composite=None, since=None,
                 inplace=None, nograd=(), note=None):
        self.op = op
        self.setup = setup
        self.call = call
        self.family = family
        self.composite = composite
        self.since = since
        self.inplace = inplace
        self.nograd = tuple(nograd)
        self.note = note


C = Call
X2 = "x = torch.randn(8, 10)"
AB = "a = torch.randn(8, 10); b = torch.randn(8, 10)"
IMG = "x = torch.randn(2, 3, 16, 16)"
SPD = "m = torch.randn(8, 8); a = m @ m.mT + 8 * torch.eye(8)"
SQ = "a = torch.randn(8, 8) + 8 * torch.eye(8)"
LOGITS = "x = torch.randn(8, 10); t = torch.randint(0, 10, (8,))"

# ---- the ops of the default ops.list -------------------------------------------

OPS_LIST = [
    # matrix multiply and linear layers
    C("nn.Linear", "x = torch.randn(8, 16); m = nn.Linear(16, 32)", "m(x)", "matmul"),
    C("F.linear", "x = torch.randn(8, 16); w = torch.randn(32, 16)", "F.linear(x, w)", "matmul"),
    C("torch.matmul", "a = torch.randn(8, 16); b = torch.randn(16, 32)", "torch.matmul(a, b)", "matmul"),
    C("torch.mm", "a = torch.randn(8, 16); b = torch.randn(16, 32)", "torch.mm(a, b)", "matmul"),
    C("torch.bmm", "a = torch.randn(4, 8, 16); b = torch.randn(4, 16, 32)", "torch.bmm(a, b)", "matmul"),
    C("torch.addmm", "c = torch.randn(8, 32); a = torch.randn(8, 16); b = torch.randn(16, 32)",
      "torch.addmm(c, a, b)", "matmul"),
    C("torch.baddbmm", "c = torch.randn(4, 8, 32); a = torch.randn(4, 8, 16); b = torch.randn(4, 16, 32)",
      "torch.baddbmm(c, a, b)", "matmul"),
    C("torch.einsum", "a = torch.randn(8, 16); b = torch.randn(16, 32)", "torch.einsum('ij,jk->ik', a, b)",
      "matmul"),
    C("Tensor.matmul", "a = torch.randn(8, 16); b = torch.randn(16, 32)", "a.matmul(b)", "matmul"),
    C("aten::addmm.out",
      "c = torch.randn(8, 32); a = torch.randn(8, 16); b = torch.randn(16, 32); o = torch.empty(8, 32)",
      "torch.ops.aten.addmm.out(c, a, b, out=o)", "matmul", nograd=("o",),
      note="out= variant: with inputs that require grad it raises (no backward graph)"),
    # attention
    C("nn.MultiheadAttention", "q = torch.randn(10, 2, 32); m = nn.MultiheadAttention(32, 4)",
      "m(q, q, q)", "attention"),
    C("F.scaled_dot_product_attention",
      "q = torch.randn(2, 4, 10, 8); k = torch.randn(2, 4, 10, 8); v = torch.randn(2, 4, 10, 8)",
      "F.scaled_dot_product_attention(q, k, v)", "attention", since="2.0"),
    C("F.multi_head_attention_forward",
      "q = torch.randn(10, 2, 32); wi = torch.randn(96, 32); bi = torch.randn(96);"
      " wo = torch.randn(32, 32); bo = torch.randn(32)",
      "F.multi_head_attention_forward(q, q, q, 32, 4, wi, bi, None, None, False, 0.0, wo, bo)",
      "attention", note="every argument up to out_proj_bias is required; dropout_p 0.0"),
    # softmax
    C("F.softmax", X2, "F.softmax(x, dim=-1)", "softmax",
      note="dim given: without it softmax warns and guesses"),
    C("F.log_softmax", X2, "F.log_softmax(x, dim=-1)", "softmax"),
    C("nn.Softmax", X2 + "; m = nn.Softmax(dim=-1)", "m(x)", "softmax"),
    C("aten::_softmax", X2, "torch.ops.aten._softmax(x, -1, False)", "softmax"),
    # normalisation
    C("nn.LayerNorm", "x = torch.randn(8, 32); m = nn.LayerNorm(32)", "m(x)", "normalization"),
    C("F.layer_norm", "x = torch.randn(8, 32)", "F.layer_norm(x, (32,))", "normalization"),
    C("nn.BatchNorm2d", "x = torch.randn(4, 16, 8, 8); m = nn.BatchNorm2d(16)", "m(x)", "normalization"),
    C("F.batch_norm", "x = torch.randn(4, 16, 8, 8); rm = torch.zeros(16); rv = torch.ones(16)",
      "F.batch_norm(x, rm, rv)", "normalization", nograd=("rm", "rv"),
      note="training=False is F.batch_norm's default: the running statistics are used"),
    C("nn.GroupNorm", "x = torch.randn(4, 16, 8, 8); m = nn.GroupNorm(4, 16)", "m(x)", "normalization"),
    C("F.group_norm", "x = torch.randn(4, 16, 8, 8)", "F.group_norm(x, 4)", "normalization"),
    C("F.rms_norm", "x = torch.randn(8, 32)", "F.rms_norm(x, (32,))", "normalization", since="2.4"),
    C("F.normalize", "x = torch.randn(8, 32)", "F.normalize(x)", "normalization"),
    C("torch.linalg.vector_norm", "x = torch.randn(8, 32)", "torch.linalg.vector_norm(x)", "reduction"),
    # convolutions
    C("nn.Conv2d", IMG + "; m = nn.Conv2d(3, 16, 3)", "m(x)", "conv"),
    C("F.conv2d", IMG + "; w = torch.randn(16, 3, 3, 3)", "F.conv2d(x, w)", "conv"),
    C("F.conv1d", "x = torch.randn(2, 4, 32); w = torch.randn(8, 4, 3)", "F.conv1d(x, w)", "conv"),
    C("nn.ConvTranspose2d", "x = torch.randn(2, 16, 8, 8); m = nn.ConvTranspose2d(16, 8, 3)", "m(x)", "conv"),
    C("F.conv_transpose2d", "x = torch.randn(2, 16, 8, 8); w = torch.randn(16, 8, 3, 3)",
      "F.conv_transpose2d(x, w)", "conv"),
    # pooling
    C("nn.MaxPool2d", IMG + "; m = nn.MaxPool2d(2)", "m(x)", "pooling"),
    C("F.max_pool2d", IMG, "F.max_pool2d(x, 2)", "pooling"),
    C("F.avg_pool2d", IMG, "F.avg_pool2d(x, 2)", "pooling"),
    C("nn.AdaptiveAvgPool2d", IMG + "; m = nn.AdaptiveAvgPool2d((4, 4))", "m(x)", "pooling",
      note="output 4x4, not 1x1 (which takes the mean shortcut)"),
    C("F.adaptive_avg_pool2d", IMG, "F.adaptive_avg_pool2d(x, (4, 4))", "pooling"),
    # activations and dropout
    C("F.gelu", X2, "F.gelu(x)", "activation"),
    C("nn.GELU", X2 + "; m = nn.GELU()", "m(x)", "activation"),
    C("F.silu", X2, "F.silu(x)", "activation"),
    C("F.relu", X2, "F.relu(x)", "activation"),
    C("F.dropout", X2, "F.dropout(x)", "dropout"),
    C("nn.Dropout", X2 + "; m = nn.Dropout()", "m(x)", "dropout"),
    # losses
    C("nn.CrossEntropyLoss", LOGITS + "; m = nn.CrossEntropyLoss()", "m(x, t)", "loss"),
    C("F.cross_entropy", LOGITS, "F.cross_entropy(x, t)", "loss"),
    C("F.nll_loss", LOGITS, "F.nll_loss(x, t)", "loss"),
    C("F.mse_loss", AB, "F.mse_loss(a, b)", "loss"),
    C("F.binary_cross_entropy_with_logits", "x = torch.randn(8, 10); y = torch.rand(8, 10)",
      "F.binary_cross_entropy_with_logits(x, y)", "loss"),
    C("F.kl_div", "x = torch.randn(8, 10).log_softmax(-1); y = torch.rand(8, 10)", "F.kl_div(x, y)", "loss"),
    # embeddings
    C("nn.Embedding", "i = torch.randint(0, 100, (4, 8)); m = nn.Embedding(100, 16)", "m(i)", "embedding"),
    C("F.embedding", "i = torch.randint(0, 100, (4, 8)); w = torch.randn(100, 16)", "F.embedding(i, w)",
      "embedding"),
    C("nn.EmbeddingBag", "i = torch.randint(0, 100, (4, 8)); m = nn.EmbeddingBag(100, 16)", "m(i)",
      "embedding"),
    C("F.embedding_bag", "i = torch.randint(0, 100, (4, 8)); w = torch.randn(100, 16)",
      "F.embedding_bag(i, w)", "embedding"),
    # recurrent networks
    C("nn.LSTM", "x = torch.randn(5, 3, 16); m = nn.LSTM(16, 32)", "m(x)", "rnn"),
    C("nn.GRU", "x = torch.randn(5, 3, 16); m = nn.GRU(16, 32)", "m(x)", "rnn"),
    C("nn.RNN", "x = torch.randn(5, 3, 16); m = nn.RNN(16, 32)", "m(x)", "rnn"),
    C("nn.LSTMCell", "x = torch.randn(3, 16); m = nn.LSTMCell(16, 32)", "m(x)", "rnn"),
    # scans and reductions
    C("torch.cumsum", X2, "torch.cumsum(x, 0)", "reduction"),
    C("torch.cumprod", X2, "torch.cumprod(x, 0)", "reduction"),
    C("torch.logsumexp", X2, "torch.logsumexp(x, 1)", "reduction"),
    C("torch.sum", X2, "torch.sum(x)", "reduction"),
    C("torch.mean", X2, "torch.mean(x)", "reduction"),
    C("torch.var", X2, "torch.var(x)", "reduction"),
    # sorting and selection
    C("torch.sort", X2, "torch.sort(x)", "sorting"),
    C("torch.topk", X2, "torch.topk(x, 3)", "sorting"),
    C("torch.argsort", X2, "torch.argsort(x)", "sorting"),
    C("torch.unique", "x = torch.randint(0, 10, (64,)).float()", "torch.unique(x)", "sorting"),
    # indexing
    C("torch.index_select", X2 + "; i = torch.tensor([0, 2, 4])", "torch.index_select(x, 0, i)", "indexing"),
    C("torch.gather", X2 + "; i = torch.randint(0, 10, (8, 3))", "torch.gather(x, 1, i)", "indexing"),
    C("torch.scatter_add", X2 + "; i = torch.randint(0, 10, (8, 3)); s = torch.randn(8, 3)",
      "torch.scatter_add(x, 1, i, s)", "indexing"),
    C("Tensor.index_put_", X2 + "; i = torch.tensor([0, 2, 4]); v = torch.randn(3, 10)",
      "x.index_put_((i,), v)", "indexing", inplace="x"),
    C("torch.where", AB + "; c = a > 0", "torch.where(c, a, b)", "indexing"),
    C("torch.masked_select", X2 + "; k = x > 0", "torch.masked_select(x, k)", "indexing"),
    C("Tensor.index_add_", X2 + "; i = torch.tensor([0, 2, 4]); s = torch.randn(3, 10)",
      "x.index_add_(0, i, s)", "indexing", inplace="x"),
    # answered from the well-known reference
    C("torch.add", AB, "torch.add(a, b)", "elementwise"),
    C("torch.mul", AB, "torch.mul(a, b)", "elementwise"),
    C("Tensor.view", X2, "x.view(4, 20)", "view"),
    C("torch.zeros", "", "torch.zeros(8, 10)", "factory"),
    C("torch.cat", AB, "torch.cat([a, b])", "shape"),
    C("torch.exp", X2, "torch.exp(x)", "elementwise"),
    C("torch.eq", AB, "torch.eq(a, b)", "elementwise"),
    # other namespaces and spellings
    C("torch.fft.fft", "x = torch.randn(64)", "torch.fft.fft(x)", "fft"),
    C("torch.special.erf", X2, "torch.special.erf(x)", "elementwise"),
    C("torch.linalg.norm", "x = torch.randn(8, 32)", "torch.linalg.norm(x)", "reduction"),
    C("aten::add.Tensor", AB, "torch.ops.aten.add.Tensor(a, b)", "elementwise"),
    C("torch.ops.aten.addmm", "c = torch.randn(8, 32); a = torch.randn(8, 16); b = torch.randn(16, 32)",
      "torch.ops.aten.addmm(c, a, b)", "matmul"),
]

# ---- ops outside ops.list ------------------------------------------------------

MORE = [
    # linear algebra
    C("torch.linalg.solve", SQ + "; b = torch.randn(8, 4)", "torch.linalg.solve(a, b)", "linalg",
      composite="linalg_solve"),
    C("torch.linalg.inv", SQ, "torch.linalg.inv(a)", "linalg", composite="linalg_inv"),
    C("torch.linalg.qr", "a = torch.randn(8, 6)", "torch.linalg.qr(a)", "linalg"),
    C("torch.linalg.svd", "a = torch.randn(8, 6)", "torch.linalg.svd(a)", "linalg", composite="linalg_svd"),
    C("torch.linalg.cholesky", SPD, "torch.linalg.cholesky(a)", "linalg", composite="linalg_cholesky"),
    C("torch.linalg.det", SQ, "torch.linalg.det(a)", "linalg", composite="linalg_det"),
    C("torch.linalg.slogdet", SQ, "torch.linalg.slogdet(a)", "linalg", composite="linalg_slogdet"),
    C("torch.linalg.eigh", SPD, "torch.linalg.eigh(a)", "linalg", composite="linalg_eigh"),
    C("torch.linalg.pinv", "a = torch.randn(8, 6)", "torch.linalg.pinv(a)", "linalg", composite="linalg_pinv"),
    C("torch.linalg.matrix_norm", SQ, "torch.linalg.matrix_norm(a)", "linalg",
      composite="linalg_matrix_norm"),
    C("torch.linalg.svdvals", "a = torch.randn(8, 6)", "torch.linalg.svdvals(a)", "linalg",
      composite="linalg_svdvals"),
    C("torch.linalg.lstsq", "a = torch.randn(8, 6); b = torch.randn(8, 2)", "torch.linalg.lstsq(a, b)",
      "linalg"),
    C("torch.linalg.lu_factor", SQ, "torch.linalg.lu_factor(a)", "linalg", composite="linalg_lu_factor"),
    C("torch.linalg.matrix_power", SQ, "torch.linalg.matrix_power(a, 3)", "linalg",
      composite="linalg_matrix_power"),
    C("torch.linalg.multi_dot",
      "a = torch.randn(8, 16); b = torch.randn(16, 32); c = torch.randn(32, 4)",
      "torch.linalg.multi_dot([a, b, c])", "linalg", composite="linalg_multi_dot"),
    # fft
    C("torch.fft.rfft", "x = torch.randn(64)", "torch.fft.rfft(x)", "fft", composite="fft_rfft"),
    C("torch.fft.ifft", "x = torch.randn(64)", "torch.fft.ifft(x)", "fft", composite="fft_ifft"),
    C("torch.fft.fft2", "x = torch.randn(4, 16, 16)", "torch.fft.fft2(x)", "fft", composite="fft_fft2"),
    C("torch.fft.irfft", "x = torch.randn(64)", "torch.fft.irfft(x)", "fft", composite="fft_irfft"),
    C("torch.stft", "x = torch.randn(256)", "torch.stft(x, 64, return_complex=True)", "fft",
      composite="stft", note="return_complex is required for real input at both releases"),
    # losses
    C("F.l1_loss", AB, "F.l1_loss(a, b)", "loss", composite="l1_loss"),
    C("F.smooth_l1_loss", AB, "F.smooth_l1_loss(a, b)", "loss"),
    C("F.huber_loss", AB, "F.huber_loss(a, b)", "loss"),
    C("F.binary_cross_entropy", "x = torch.rand(8, 10); y = torch.rand(8, 10)",
      "F.binary_cross_entropy(x, y)", "loss"),
    C("F.margin_ranking_loss", "a = torch.randn(8); b = torch.randn(8); y = torch.randn(8).sign()",
      "F.margin_ranking_loss(a, b, y)", "loss", composite="margin_ranking_loss"),
    C("F.hinge_embedding_loss", X2 + "; y = torch.randn(8, 10).sign()", "F.hinge_embedding_loss(x, y)",
      "loss", composite="hinge_embedding_loss"),
    C("F.cosine_embedding_loss", "a = torch.randn(8, 16); b = torch.randn(8, 16); y = torch.randn(8).sign()",
      "F.cosine_embedding_loss(a, b, y)", "loss", composite="cosine_embedding_loss"),
    C("F.triplet_margin_loss", "a = torch.randn(8, 16); p = torch.randn(8, 16); n = torch.randn(8, 16)",
      "F.triplet_margin_loss(a, p, n)", "loss", composite="triplet_margin_loss"),
    C("F.poisson_nll_loss", "x = torch.randn(8, 10); y = torch.rand(8, 10)", "F.poisson_nll_loss(x, y)",
      "loss", composite="poisson_nll_loss"),
    C("F.soft_margin_loss", X2 + "; y = torch.randn(8, 10).sign()", "F.soft_margin_loss(x, y)", "loss",
      nograd=("y",), note="its target has no derivative: requiring grad raises"),
    C("F.multi_margin_loss", LOGITS, "F.multi_margin_loss(x, t)", "loss"),
    C("F.ctc_loss",
      "x = torch.randn(20, 2, 6).log_softmax(2); t = torch.randint(1, 6, (2, 5));"
      " il = torch.tensor([20, 20]); tl = torch.tensor([5, 5])",
      "F.ctc_loss(x, t, il, tl)", "loss", composite="ctc_loss.Tensor"),
    # pooling
    C("F.max_pool1d", "x = torch.randn(2, 4, 32)", "F.max_pool1d(x, 2)", "pooling", composite="max_pool1d"),
    C("F.avg_pool1d", "x = torch.randn(2, 4, 32)", "F.avg_pool1d(x, 2)", "pooling", composite="avg_pool1d"),
    C("F.adaptive_avg_pool1d", "x = torch.randn(2, 4, 32)", "F.adaptive_avg_pool1d(x, 8)", "pooling",
      composite="adaptive_avg_pool1d"),
    C("F.adaptive_max_pool2d", IMG, "F.adaptive_max_pool2d(x, (4, 4))", "pooling"),
    C("F.max_pool3d", "x = torch.randn(2, 3, 8, 8, 8)", "F.max_pool3d(x, 2)", "pooling",
      composite="max_pool3d"),
    C("F.lp_pool2d", IMG, "F.lp_pool2d(x, 2, 2)", "pooling"),
    # upsampling and sampling
    C("F.interpolate", IMG, "F.interpolate(x, scale_factor=2.0)", "upsampling",
      note="mode 'nearest' is the default"),
    C("F.upsample_bilinear", IMG, "F.upsample_bilinear(x, scale_factor=2.0)", "upsampling"),
    C("F.grid_sample", IMG + "; g = torch.rand(2, 8, 8, 2) * 2 - 1", "F.grid_sample(x, g)", "upsampling",
      composite="grid_sampler"),
    C("F.pixel_shuffle", "x = torch.randn(2, 16, 8, 8)", "F.pixel_shuffle(x, 2)", "upsampling"),
    # padding
    C("F.pad", IMG, "F.pad(x, (1, 1, 1, 1))", "padding", composite="pad"),
    C("nn.ReflectionPad2d", IMG + "; m = nn.ReflectionPad2d(2)", "m(x)", "padding"),
    C("nn.ReplicationPad1d", "x = torch.randn(2, 4, 32); m = nn.ReplicationPad1d(2)", "m(x)", "padding"),
    # normalisation
    C("F.instance_norm", "x = torch.randn(4, 16, 8, 8)", "F.instance_norm(x)", "normalization",
      composite="instance_norm"),
    C("nn.InstanceNorm2d", "x = torch.randn(4, 16, 8, 8); m = nn.InstanceNorm2d(16)", "m(x)",
      "normalization"),
    C("F.local_response_norm", "x = torch.randn(4, 16, 8, 8)", "F.local_response_norm(x, 2)",
      "normalization"),
    # activations
    C("F.elu", X2, "F.elu(x)", "activation"),
    C("F.selu", X2, "F.selu(x)", "activation", composite="selu"),
    C("F.relu6", X2, "F.relu6(x)", "activation", composite="relu6"),
    C("F.leaky_relu", X2, "F.leaky_relu(x)", "activation"),
    C("F.mish", X2, "F.mish(x)", "activation"),
    C("F.softplus", X2, "F.softplus(x)", "activation"),
    C("F.glu", X2, "F.glu(x)", "activation"),
    C("F.logsigmoid", X2, "F.logsigmoid(x)", "activation"),
    C("F.hardswish", X2, "F.hardswish(x)", "activation"),
    C("F.prelu", X2 + "; w = torch.randn(1)", "F.prelu(x, w)", "activation"),
    C("F.softmin", X2, "F.softmin(x, dim=-1)", "softmax"),
    C("F.rrelu", X2, "F.rrelu(x)", "activation", composite="rrelu",
      note="training=False is F.rrelu's default: a fixed slope"),
    # elementwise
    C("torch.sigmoid", X2, "torch.sigmoid(x)", "elementwise"),
    C("torch.tanh", X2, "torch.tanh(x)", "elementwise"),
    C("torch.clamp", X2, "torch.clamp(x, -0.5, 0.5)", "elementwise"),
    C("torch.pow", X2, "torch.pow(x, 2)", "elementwise"),
    C("torch.lerp", AB, "torch.lerp(a, b, 0.5)", "elementwise"),
    C("torch.addcmul", AB + "; c = torch.randn(8, 10)", "torch.addcmul(a, b, c)", "elementwise"),
    C("torch.square", X2, "torch.square(x)", "elementwise", composite="square"),
    C("torch.hypot", AB, "torch.hypot(a, b)", "elementwise"),
    C("torch.xlogy", "a = torch.rand(8, 10); b = torch.rand(8, 10)", "torch.xlogy(a, b)", "elementwise"),
    C("torch.clip", X2, "torch.clip(x, -0.5, 0.5)", "elementwise", composite="clip"),
    # reductions and statistics
    C("torch.std", X2, "torch.std(x)", "reduction", composite="std"),
    C("torch.var_mean", X2, "torch.var_mean(x)", "reduction", composite="var_mean"),
    C("torch.nanmean", X2, "torch.nanmean(x)", "reduction", composite="nanmean"),
    C("torch.prod", X2, "torch.prod(x)", "reduction"),
    C("torch.amax", X2, "torch.amax(x, 1)", "reduction"),
    C("torch.max", X2, "torch.max(x)", "reduction",
      note="only the required argument: max(input) is its docstring's first signature and example"),
    C("torch.median", X2, "torch.median(x)", "reduction"),
    C("torch.logcumsumexp", X2, "torch.logcumsumexp(x, 1)", "reduction"),
    C("torch.cummax", X2, "torch.cummax(x, 1)", "reduction"),
    C("torch.quantile", X2, "torch.quantile(x, 0.5)", "reduction", composite="quantile"),
    C("torch.cov", X2, "torch.cov(x)", "reduction", composite="cov"),
    # indexing, scatter and gather
    C("torch.take_along_dim", X2 + "; i = torch.randint(0, 80, (8, 3))", "torch.take_along_dim(x, i)",
      "indexing", composite="take_along_dim",
      note="only the required arguments, as the docstring's first example: i indexes the flattened x"),
    C("Tensor.masked_fill", X2 + "; k = x > 0", "x.masked_fill(k, 0.0)", "indexing"),
    C("torch.scatter", X2 + "; i = torch.randint(0, 10, (8, 3)); s = torch.randn(8, 3)",
      "torch.scatter(x, 1, i, s)", "indexing"),
    C("torch.index_add", X2 + "; i = torch.tensor([0, 2, 4]); s = torch.randn(3, 10)",
      "torch.index_add(x, 0, i, s)", "indexing"),
    C("torch.narrow", X2, "torch.narrow(x, 1, 2, 5)", "view", composite="narrow"),
    C("torch.flatten", "x = torch.randn(2, 3, 4, 5)", "torch.flatten(x, 1)", "view"),
    # sorting and selection
    C("torch.kthvalue", X2, "torch.kthvalue(x, 3)", "sorting"),
    C("torch.msort", X2, "torch.msort(x)", "sorting", composite="msort"),
    C("torch.argmax", X2, "torch.argmax(x)", "sorting"),
    C("torch.searchsorted", "s = torch.sort(torch.randn(64)).values; v = torch.randn(8)",
      "torch.searchsorted(s, v)", "sorting"),
    C("torch.nonzero", "x = torch.randn(8, 10).relu()", "torch.nonzero(x)", "sorting"),
    # recurrent cells
    C("nn.GRUCell", "x = torch.randn(3, 16); m = nn.GRUCell(16, 32)", "m(x)", "rnn"),
    C("nn.RNNCell", "x = torch.randn(3, 16); m = nn.RNNCell(16, 32)", "m(x)", "rnn"),
    # distances
    C("torch.cdist", "a = torch.randn(8, 16); b = torch.randn(6, 16)", "torch.cdist(a, b)", "distance",
      composite="cdist"),
    C("F.pairwise_distance", "a = torch.randn(8, 16); b = torch.randn(8, 16)", "F.pairwise_distance(a, b)",
      "distance", composite="pairwise_distance"),
    C("F.cosine_similarity", "a = torch.randn(8, 16); b = torch.randn(8, 16)", "F.cosine_similarity(a, b)",
      "distance", composite="cosine_similarity"),
    C("F.pdist", "a = torch.randn(8, 16)", "F.pdist(a)", "distance", composite="pdist"),
    C("torch.dist", AB, "torch.dist(a, b)", "distance"),
    # convolution variants
    C("F.conv3d", "x = torch.randn(2, 3, 8, 8, 8); w = torch.randn(4, 3, 3, 3, 3)", "F.conv3d(x, w)", "conv",
      composite="conv3d"),
    C("F.conv_transpose1d", "x = torch.randn(2, 8, 16); w = torch.randn(8, 4, 3)", "F.conv_transpose1d(x, w)",
      "conv", composite="conv_transpose1d"),
    C("nn.Conv1d", "x = torch.randn(2, 4, 32); m = nn.Conv1d(4, 8, 3)", "m(x)", "conv"),
    C("F.unfold", IMG, "F.unfold(x, 3)", "conv"),
    C("F.fold", "x = torch.randn(2, 27, 196)", "F.fold(x, (16, 16), 3)", "conv"),
    C("F.bilinear", "a = torch.randn(8, 16); b = torch.randn(8, 12); w = torch.randn(4, 16, 12)",
      "F.bilinear(a, b, w)", "matmul", composite="bilinear"),
    # embedding and attention pieces
    C("F.one_hot", "i = torch.randint(0, 10, (8,))", "F.one_hot(i)", "embedding", composite="one_hot"),
    C("torch.tril", X2, "torch.tril(x)", "attention"),
    C("torch.outer", "a = torch.randn(8); b = torch.randn(10)", "torch.outer(a, b)", "matmul",
      composite="outer"),
    C("torch.tensordot", "a = torch.randn(4, 8, 16); b = torch.randn(16, 8, 5)",
      "torch.tensordot(a, b, ([1, 2], [1, 0]))", "matmul", composite="tensordot"),
    C("torch.kron", "a = torch.randn(3, 4); b = torch.randn(2, 5)", "torch.kron(a, b)", "matmul",
      composite="kron"),
    C("torch.inner", "a = torch.randn(8, 16); b = torch.randn(6, 16)", "torch.inner(a, b)", "matmul",
      composite="inner"),
    C("torch.chain_matmul",
      "a = torch.randn(8, 16); b = torch.randn(16, 32); c = torch.randn(32, 4)",
      "torch.chain_matmul(a, b, c)", "matmul", composite="chain_matmul"),
    # shape
    C("torch.stack", AB, "torch.stack([a, b])", "shape"),
    C("torch.chunk", X2, "torch.chunk(x, 2)", "shape", composite="chunk"),
    C("torch.tile", X2, "torch.tile(x, (2, 2))", "shape", composite="tile"),
    C("torch.roll", X2, "torch.roll(x, 1)", "shape"),
    C("torch.flip", X2, "torch.flip(x, (0,))", "shape"),
    C("torch.repeat_interleave", X2, "torch.repeat_interleave(x, 2)", "shape"),
    C("torch.broadcast_to", "x = torch.randn(1, 10)", "torch.broadcast_to(x, (8, 10))", "view",
      composite="broadcast_to"),
    C("torch.meshgrid", "a = torch.randn(8); b = torch.randn(10)", "torch.meshgrid(a, b, indexing='ij')",
      "shape", composite="meshgrid", note="indexing given: without it meshgrid warns"),
    C("torch.hstack", AB, "torch.hstack([a, b])", "shape", composite="hstack"),
    C("torch.diff", X2, "torch.diff(x)", "elementwise", composite="diff"),
]

CALLS = OPS_LIST + MORE


def by_op():
    """The calls keyed by op name (names are unique)."""
    out = {}
    for c in CALLS:
        if c.op in out:
            raise ValueError("two calls for " + c.op)
        out[c.op] = c
    return out


# ---- --check ---------------------------------------------------------------------

TAGS = ("v1.13.1", "v2.6.0")


def ops_list_names(path):
    """The op names of an ops.list (its first word per line)."""
    names = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            word = line.split("#", 1)[0].split()
            if word:
                names.append(word[0])
    return names


def composite_entries(source, tag):
    """{entry name with overload: composite?} of native_functions.yaml at tag.

    An entry is CompositeImplicitAutograd when it has no dispatch table and no
    structured_delegate (torchgen's default, model.py NativeFunction.from_yaml)
    or when its dispatch table has that key.
    """
    import yaml
    text = subprocess.run(["git", "-C", source, "show", tag + ":aten/src/ATen/native/native_functions.yaml"],
                          check=True, capture_output=True, text=True).stdout
    out = {}
    for e in yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
        name = e["func"].split("(", 1)[0]
        dispatch = e.get("dispatch")
        if dispatch is None:
            out[name] = "structured_delegate" not in e
        else:
            keys = {k.strip() for key in dispatch for k in key.split(",")}
            out[name] = "CompositeImplicitAutograd" in keys
    return out


def check(source, ops_list):
    errors = []
    calls = by_op()
    for name in ops_list_names(ops_list):
        if name not in calls:
            errors.append("%s: op of %s without a call" % (name, ops_list))
    listed = set(ops_list_names(ops_list))
    for tag in TAGS:
        entries = composite_entries(source, tag)
        for c in CALLS:
            if c.composite and not entries.get(c.composite):
                errors.append("%s: %s is %s at %s" % (c.op, c.composite,
                              "not CompositeImplicitAutograd" if c.composite in entries else "absent", tag))
    # the entry named is the one the call reaches: an op the recorded call
    # dispatches first (no parent), at every release recorded in data/
    here = os.path.dirname(os.path.abspath(__file__))
    for tag in TAGS:
        path = os.path.join(here, "data", tag[1:] + ".json")
        if not os.path.exists(path):
            errors.append("no recording %s" % path)
            continue
        with open(path, encoding="utf-8") as f:
            ops = json.load(f)["ops"]
        for c in CALLS:
            rec = ops.get(c.op)
            if rec is None:
                errors.append("%s: not in %s" % (c.op, path))
            elif c.composite and rec["status"] == "ok":
                top = [e["op"] for e in rec["forward"] if e["parent"] is None]
                if c.composite.split(".")[0] not in top:
                    errors.append("%s: %s is not what the call dispatches first at %s (%s)"
                                  % (c.op, c.composite, tag, " ".join(top)))
    more = [c for c in CALLS if c.op not in listed]
    composite = [c for c in more if c.composite]
    print("%d calls: %d ops of %s, %d outside it (%d of them composite at %s)"
          % (len(CALLS), len(CALLS) - len(more), ops_list, len(more), len(composite), " and ".join(TAGS)))
    for e in errors:
        print("calls.py: " + e, file=sys.stderr)
    return 1 if errors else 0


def main(argv):
    if len(argv) >= 2 and argv[1] == "--check":
        if len(argv) < 3:
            print("usage: calls.py --check SOURCE [OPS_LIST]", file=sys.stderr)
            return 2
        here = os.path.dirname(os.path.abspath(__file__))
        return check(argv[2], argv[3] if len(argv) > 3 else os.path.join(here, "..", "..", "ops.list"))
    by_op()
    for c in CALLS:
        print(c.op)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
