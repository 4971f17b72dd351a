#!/usr/bin/env python3
"""A Temporal-Fusion-Transformer-like forecaster (Lim et al. 2021, reduced): per-variable
embeddings and a variable selection network of gated residual networks, an LSTM encoder over 24
past steps and a decoder over 6 future steps of known inputs, causal multi-head self-attention,
and quantile heads (0.1, 0.5, 0.9) trained on the quantile loss with Adam. The data are 16
synthetic series of 6 features stored in a Parquet-like file (pqlike.py) that the setup writes;
every epoch reads the file back (decompressing every page), cuts windows and trains --steps
batches of 32. Phases (allocab): import, setup, then one 'epoch' per --epochs."""
import os
import tempfile

from common import arguments, checksum, deterministic, phase

args = arguments(__doc__, epochs=8, steps=4)
with phase.phase("import"):
    import math

    import torch

    import pqlike

PAST, HORIZON, FEATURES, SERIES, ROWS, D, QUANTILES = 24, 6, 6, 16, 2048, 16, (0.1, 0.5, 0.9)
BATCH = 32


class GRN(torch.nn.Module):
    """Gated residual network: ELU layer, GLU gate, residual, layer norm."""

    def __init__(self, d_in, d, d_out):
        super().__init__()
        self.fc1, self.fc2 = torch.nn.Linear(d_in, d), torch.nn.Linear(d, 2 * d_out)
        self.skip = torch.nn.Linear(d_in, d_out) if d_in != d_out else torch.nn.Identity()
        self.norm = torch.nn.LayerNorm(d_out)

    def forward(self, x):
        return self.norm(self.skip(x) + torch.nn.functional.glu(self.fc2(
            torch.nn.functional.elu(self.fc1(x)))))


class TFT(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.ModuleList(torch.nn.Linear(1, D) for _ in range(FEATURES))
        self.select = GRN(FEATURES * D, D, FEATURES)
        self.var_grn = torch.nn.ModuleList(GRN(D, D, D) for _ in range(FEATURES))
        self.known = torch.nn.Linear(2, D)
        self.encoder = torch.nn.LSTM(D, D, batch_first=True)
        self.decoder = torch.nn.LSTM(D, D, batch_first=True)
        self.post_lstm = GRN(D, D, D)
        self.attn = torch.nn.MultiheadAttention(D, 4, batch_first=True)
        self.post_attn = GRN(D, D, D)
        self.head = torch.nn.Linear(D, len(QUANTILES))

    def forward(self, past, future_known):
        e = torch.stack([emb(past[..., i:i + 1]) for i, emb in enumerate(self.embed)], -2)
        w = torch.softmax(self.select(e.flatten(-2)), -1).unsqueeze(-1)
        v = torch.stack([g(e[..., i, :]) for i, g in enumerate(self.var_grn)], -2)
        x = (w * v).sum(-2)
        enc, state = self.encoder(x)
        dec, _ = self.decoder(self.known(future_known), state)
        h = self.post_lstm(torch.cat([enc, dec], 1))
        n = h.shape[1]
        mask = torch.triu(torch.ones(n, n, dtype=torch.bool), 1)
        a, _ = self.attn(h, h, h, attn_mask=mask, need_weights=False)
        return self.head(self.post_attn(a + h)[:, -HORIZON:])


def quantile_loss(pred, y):
    losses = [torch.max(q * (y - pred[..., i]), (q - 1) * (y - pred[..., i]))
              for i, q in enumerate(QUANTILES)]
    return torch.stack(losses).mean()


def synthetic_columns(g):
    t = torch.arange(SERIES * ROWS, dtype=torch.float64) % ROWS
    sid = torch.arange(SERIES * ROWS) // ROWS
    cols = {}
    for f in range(FEATURES):
        period = 24.0 * (1 + f % 3)
        phase_shift = torch.rand(SERIES, generator=g, dtype=torch.float64)[sid] * 2 * math.pi
        cols[f"f{f}"] = (torch.sin(2 * math.pi * t / period + phase_shift) + 0.001 * t * (f % 2)
                         + 0.1 * torch.randn(SERIES * ROWS, generator=g,
                                             dtype=torch.float64)).tolist()
    return cols


def windows(path, g):
    """Every row group of the file as a (ROWS, FEATURES) tensor, read back from its pages."""
    return [torch.stack([torch.frombuffer(group[f"f{f}"], dtype=torch.float32)
                         for f in range(FEATURES)], -1)
            for group in pqlike.read_groups(path)]


with phase.phase("setup"):
    deterministic(torch, args.seed)
    g = torch.Generator().manual_seed(args.seed)
    tmp = tempfile.mkdtemp(prefix="allocab-tft.")
    path = os.path.join(tmp, "series.pql")
    pqlike.write(path, synthetic_columns(g), group_rows=ROWS, page_rows=512)
    model = TFT()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    total_loss = 0.0

try:
    for epoch in range(args.epochs):
        with phase.phase("epoch"):
            groups = windows(path, g)
            for _ in range(args.steps):
                s = torch.randint(SERIES, (BATCH,), generator=g)
                t0 = torch.randint(ROWS - PAST - HORIZON, (BATCH,), generator=g)
                idx = t0.unsqueeze(1) + torch.arange(PAST + HORIZON)
                seq = torch.stack([groups[int(i)][idx[k]] for k, i in enumerate(s)])
                tod = (idx % 24).float() / 24
                known = torch.stack([torch.sin(2 * math.pi * tod), torch.cos(2 * math.pi * tod)],
                                    -1)[:, PAST:]
                pred = model(seq[:, :PAST], known)
                loss = quantile_loss(pred, seq[:, PAST:, 0])
                opt.zero_grad()
                loss.backward()
                opt.step()
                total_loss += float(loss)
finally:
    os.remove(path)
    os.rmdir(tmp)

checksum(torch, model, total_loss)
