"""A Parquet-like columnar file, written and read with the standard library only: row groups of
column chunks, each chunk pages of at most `page_rows` little-endian float32 values compressed
with zlib, and a footer (JSON metadata, its 4-byte length, the magic) that indexes every page,
as Parquet's footer does. The layout is that of allocab's own Parquet-like file
(workloads/lib/parquet_file.c: row groups, pages, a page index) with zlib in place of zstd:
Debian 12 packages no writer of real Parquet files and no zstd module in the standard library."""
import array
import json
import struct
import zlib

MAGIC = b"PQL1"


def write(path, columns, group_rows, page_rows):
    """columns: name -> list of floats, all of one length."""
    names = list(columns)
    rows = len(columns[names[0]])
    meta = {"schema": names, "rows": rows, "row_groups": []}
    with open(path, "wb") as f:
        f.write(MAGIC)
        for g0 in range(0, rows, group_rows):
            group = {"rows": min(group_rows, rows - g0), "columns": []}
            for name in names:
                pages = []
                for p0 in range(g0, g0 + group["rows"], page_rows):
                    n = min(page_rows, g0 + group["rows"] - p0)
                    data = zlib.compress(array.array("f", columns[name][p0:p0 + n]).tobytes(), 1)
                    pages.append({"offset": f.tell(), "bytes": len(data), "rows": n})
                    f.write(data)
                group["columns"].append({"name": name, "pages": pages})
            meta["row_groups"].append(group)
        footer = json.dumps(meta).encode()
        f.write(footer + struct.pack("<I", len(footer)) + MAGIC)


def read_groups(path):
    """Yields each row group as name -> array('f') of its values."""
    with open(path, "rb") as f:
        f.seek(-8, 2)
        n, magic = struct.unpack("<I4s", f.read(8))
        if magic != MAGIC:
            raise ValueError(f"{path}: not a Parquet-like file")
        f.seek(-8 - n, 2)
        meta = json.loads(f.read(n))
        for group in meta["row_groups"]:
            out = {}
            for col in group["columns"]:
                values = array.array("f")
                for page in col["pages"]:
                    f.seek(page["offset"])
                    values.frombytes(zlib.decompress(f.read(page["bytes"])))
                out[col["name"]] = values
            yield out
