"""A tabular ML data pipeline as a data scientist runs it, with pandas and scikit-learn from Debian
(python3-pandas, python3-sklearn): a seeded synthetic table of transactions (numeric, categorical,
string and datetime columns) and a table of users, pandas feature engineering (datetime features,
string operations, group aggregates, a merge, a pivot), a scikit-learn ColumnTransformer
(OneHotEncoder and StandardScaler) and an SGDClassifier trained by partial_fit, epoch after
epoch: each epoch re-shuffles the rows, re-computes the augmented per-user features and makes
one pass of mini-batches. docs/programs.md, "A program nobody tuned to: pandas and
scikit-learn".

Phases, marked with phase/allocab_phase.py (wall and CPU time): `import` (numpy, pandas,
scikit-learn), `load` (the tables generated), `features` (the features and the fitted
transformer), `epoch` (once per epoch). One thread throughout; the same --seed prints the same
checksum under every allocator.

    /usr/bin/python3 examples/programs/tabular.py [--rows 100000] [--epochs 8] [--seed 1]
"""
import argparse
import os
import sys

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"  # before numpy loads its BLAS and scikit-learn its OpenMP runtime
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "phase"))
import allocab_phase as phase  # noqa: E402  (after the path it lives in)

CATEGORIES = ["grocery", "electronics", "fashion", "home", "toys", "sports", "books", "beauty",
              "garden", "auto", "health", "music"]
CITIES = ["Lyon", "Porto", "Gdansk", "Leeds", "Turin", "Graz", "Bilbao", "Aarhus", "Ghent",
          "Brno", "Cork", "Tartu", "Split", "Bergen", "Delft", "Lille"]
CHANNELS = ["web", "app", "store", "phone"]


def arguments():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rows", type=int, default=100000, help="transactions (rows of the table)")
    p.add_argument("--epochs", type=int, default=8, help="epochs (each one phase 'epoch')")
    p.add_argument("--seed", type=int, default=1, help="seed of every random choice")
    a = p.parse_args()
    if a.rows < 100 or a.epochs < 1:
        p.error("--rows must be at least 100 and --epochs at least 1")
    return a


def load(np, pd, rows, rng):
    """The transactions and the users, as a warehouse export would give them."""
    users = max(rows // 40, 10)
    t0 = np.datetime64("2025-01-01T00:00:00")
    tx = pd.DataFrame({
        "user_id": rng.integers(0, users, rows),
        "ts": t0 + rng.integers(0, 365 * 86400, rows).astype("timedelta64[s]"),
        "category": pd.Categorical.from_codes(rng.integers(0, len(CATEGORIES), rows), CATEGORIES),
        "channel": rng.choice(CHANNELS, rows, p=[0.45, 0.35, 0.15, 0.05]),
        "amount": np.round(rng.lognormal(3.0, 1.0, rows), 2),
        "qty": rng.integers(1, 9, rows),
        "discount": np.round(rng.uniform(0, 0.4, rows) * (rng.random(rows) < 0.3), 3),
    })
    tx["sku"] = ("SKU-" + tx["category"].astype(str).str.upper().str[:3] + "-"
                 + pd.Series(rng.integers(0, 5000, rows)).astype(str).str.zfill(5))
    us = pd.DataFrame({
        "user_id": np.arange(users),
        "city": rng.choice(CITIES, users),
        "signup": t0 - rng.integers(0, 5 * 365, users).astype("timedelta64[D]"),
        "tier": rng.choice(["basic", "plus", "pro"], users, p=[0.7, 0.2, 0.1]),
    })
    return tx, us


def features(np, pd, tx, us):
    """Datetime and string features, per-user aggregates, the users merged in, a pivot of spend
    per category; the label a function of them with noise."""
    df = tx.merge(us, on="user_id", how="left", validate="many_to_one")
    df["hour"] = df["ts"].dt.hour
    df["weekday"] = df["ts"].dt.dayofweek
    df["month"] = df["ts"].dt.month
    df["tenure_days"] = (df["ts"] - df["signup"]).dt.days
    df["sku_family"] = df["sku"].str.split("-").str[1].str.lower()
    df["sku_num"] = df["sku"].str[-5:].astype(int) % 97
    df["spend"] = df["amount"] * df["qty"] * (1 - df["discount"])
    agg = df.groupby("user_id").agg(u_n=("spend", "size"), u_mean=("spend", "mean"),
                                    u_max=("spend", "max"), u_std=("spend", "std"),
                                    u_cats=("category", "nunique"))
    piv = df.pivot_table(index="user_id", columns="category", values="spend", aggfunc="sum",
                         fill_value=0.0)
    share = piv.div(piv.sum(axis=1) + 1e-9, axis=0)
    agg["u_top_share"] = share.max(axis=1)
    agg["u_std"] = agg["u_std"].fillna(0.0)
    df = df.merge(agg, left_on="user_id", right_index=True, how="left")
    df = df.sort_values(["user_id", "ts"], kind="mergesort").reset_index(drop=True)
    df["gap_h"] = df.groupby("user_id")["ts"].diff().dt.total_seconds().fillna(0.0) / 3600.0
    df["amt_z"] = (df["spend"] - df["u_mean"]) / (df["u_std"] + 1.0)
    score = (0.8 * (df["channel"] == "app") + 0.5 * (df["tier"] != "basic")
             + 0.02 * df["u_n"] - 0.3 * df["amt_z"] + 0.6 * (df["weekday"] >= 5)
             + 1.5 * df["u_top_share"] - 2.0)
    noise = np.sin(df["sku_num"].to_numpy() * 12.9898 + df["user_id"].to_numpy() * 78.233)
    df["label"] = ((score + noise) > 0).astype(np.int8)
    return df


NUMERIC = ["amount", "qty", "discount", "spend", "hour", "month", "tenure_days", "sku_num", "u_n",
           "u_mean", "u_max", "u_std", "u_cats", "u_top_share", "gap_h", "amt_z"]
CATEGORICAL = ["category", "channel", "city", "tier", "weekday", "sku_family"]


def main():
    a = arguments()
    with phase.phase("import"):
        import numpy as np
        import pandas as pd
        from sklearn.compose import ColumnTransformer
        from sklearn.linear_model import SGDClassifier
        from sklearn.preprocessing import OneHotEncoder, StandardScaler
    # One thread from the environment variables set above, not threadpoolctl.threadpool_limits:
    # it finds libc with ctypes.util.find_library, which runs /sbin/ldconfig, a static executable
    # no preload can reach, and every run would be unverified (docs/programs.md, "Python").
    rng = np.random.default_rng(a.seed)
    with phase.phase("load"):
        tx, us = load(np, pd, a.rows, rng)
    with phase.phase("features"):
        df = features(np, pd, tx, us)
        ct = ColumnTransformer([("cat", OneHotEncoder(handle_unknown="ignore"), CATEGORICAL),
                                ("num", StandardScaler(), NUMERIC)])
        ct.fit(df[CATEGORICAL + NUMERIC])
        hold = df.sample(frac=0.1, random_state=a.seed)
        Xh, yh = ct.transform(hold[CATEGORICAL + NUMERIC]), hold["label"].to_numpy()
    clf = SGDClassifier(loss="log_loss", alpha=1e-4, random_state=a.seed)
    batch = 4096
    acc = 0.0
    for e in range(a.epochs):
        with phase.phase("epoch"):
            d = df.iloc[rng.permutation(len(df))].reset_index(drop=True)
            d["amount"] = d["amount"] * (1.0 + 0.05 * rng.standard_normal(len(d)))
            d["spend"] = d["amount"] * d["qty"] * (1 - d["discount"])
            g = d.groupby("user_id")["spend"]
            d["u_mean"] = g.transform("mean")
            d["u_max"] = g.transform("max")
            d["u_std"] = g.transform("std").fillna(0.0)
            d["amt_z"] = (d["spend"] - d["u_mean"]) / (d["u_std"] + 1.0)
            X = ct.transform(d[CATEGORICAL + NUMERIC])
            y = d["label"].to_numpy()
            for s in range(0, X.shape[0], batch):
                clf.partial_fit(X[s:s + batch], y[s:s + batch], classes=[0, 1])
            acc = float(clf.score(Xh, yh))
    w = clf.coef_.ravel()
    print(f"checksum rows={a.rows} epochs={a.epochs} labels={int(df['label'].sum())} "
          f"coef={float(w.sum()):.6e} {float((w * w).sum()):.6e} acc={acc:.6f}")


if __name__ == "__main__":
    main()
