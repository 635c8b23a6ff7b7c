"""Hostile image files for the bad-input tests: malformed PNGs, text-chunk
bombs and pixel bombs, built from a valid PNG chunk by chunk."""
import functools
import io
import struct
import zlib
from typing import Dict

import numpy as np
from PIL import Image


def png_bytes(array: np.ndarray) -> bytes:
    """An RGB/L ``uint8`` array encoded as PNG."""
    buffer = io.BytesIO()
    Image.fromarray(array).save(buffer, format='PNG')
    return buffer.getvalue()


def png_chunk(kind: bytes, data: bytes) -> bytes:
    """One PNG chunk (length, type, data, CRC)."""
    crc = zlib.crc32(kind + data) & 0xffffffff
    return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', crc)


def _after_ihdr(png: bytes, chunk: bytes) -> bytes:
    return png[:33] + chunk + png[33:]  # signature (8) + IHDR (25)


def pixel_bomb_png(width: int, height: int) -> bytes:
    """A small PNG whose header claims ``width x height`` RGB pixels."""
    png = png_bytes(np.zeros((8, 8, 3), np.uint8))
    header = struct.pack('>IIBBBBB', width, height, 8, 2, 0, 0, 0)
    return png[:8] + png_chunk(b'IHDR', header) + png[33:]


@functools.lru_cache(maxsize=None)
def _zero_bomb() -> bytes:
    """zlib data of 64 MB of zeros in ~65 kB (0.7 s to make: made once)."""
    return zlib.compress(b'\0' * (64 * 2**20), 9)


def malformed_pngs(size: int = 16) -> Dict[str, bytes]:
    """Named PNGs that no decoder should accept: text/profile chunks that
    decompress to 64 MB (zTXt, iTXt, iCCP), a truncated tRNS chunk, a
    damaged chunk type (bad CRC), a cut-off file and a corrupt IDAT."""
    png = png_bytes(np.full((size, size, 3), 90, np.uint8))
    bomb = _zero_bomb()
    return {
        'ztxt_bomb.png': _after_ihdr(png, png_chunk(b'zTXt', b'Comment\0\0' + bomb)),
        'itxt_bomb.png': _after_ihdr(
            png, png_chunk(b'iTXt', b'Comment\0\1\0\0\0' + bomb)),
        'iccp_bomb.png': _after_ihdr(png, png_chunk(b'iCCP', b'icc\0\0' + bomb)),
        'short_trns.png': _after_ihdr(png, png_chunk(b'tRNS', b'\1')),
        'bad_crc.png': png[:37] + b'IDAX' + png[41:],
        'cut_off.png': png[:50],
        'corrupt_idat.png': png[:45] + bytes(20) + png[65:],
    }


def zeroed_scan_jpeg(height: int = 64, width: int = 96) -> bytes:
    """A progressive JPEG whose markers are intact but whose first scan's
    data is zeroed: PIL's ``verify`` and the end-marker check pass, the
    decode (``load``) fails (``broken data stream``)."""
    noise = np.random.default_rng(0).integers(0, 256, (height, width, 3),
                                              np.uint8)
    buffer = io.BytesIO()
    Image.fromarray(noise).save(buffer, format='JPEG', progressive=True)
    data = bytearray(buffer.getvalue())
    sos = data.find(b'\xff\xda')
    start = sos + 2 + int.from_bytes(data[sos + 2:sos + 4], 'big')
    end = data.find(b'\xff\xda', start)  # the next scan
    data[start:end] = bytes(end - start)
    return bytes(data)
