// Writes the console's PNG icons (a white waybill sheet on the brand colour) with nothing but
// zlib, so no image tool is needed. Run: node scripts/make-icons.mjs (outputs are committed).
import { writeFileSync } from "node:fs";
import { deflateSync } from "node:zlib";

const BRAND = [0x1f, 0x3a, 0x5f];
const SHEET = [0xff, 0xff, 0xff];
const LINE = [0x9d, 0xb4, 0xcf];

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buffer) {
  let c = 0xffffffff;
  for (const byte of buffer) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** The colour at (x, y) of a size×size icon; the sheet keeps to the inner 60 % (maskable safe zone). */
function pixel(x, y, size) {
  const u = x / size;
  const v = y / size;
  const inSheet = u > 0.28 && u < 0.72 && v > 0.2 && v < 0.8;
  if (!inSheet) return BRAND;
  const line = u > 0.34 && u < 0.66 && [0.32, 0.44, 0.56, 0.68].some((row) => v > row && v < row + 0.035);
  return line ? LINE : SHEET;
}

function png(size) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // truecolour RGB
  const raw = Buffer.alloc(size * (size * 3 + 1));
  for (let y = 0; y < size; y++) {
    const row = y * (size * 3 + 1);
    raw[row] = 0; // no filter
    for (let x = 0; x < size; x++) raw.set(pixel(x, y, size), row + 1 + x * 3);
  }
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", header), chunk("IDAT", deflateSync(raw)), chunk("IEND", Buffer.alloc(0))]);
}

for (const size of [192, 512]) writeFileSync(new URL(`../public/icons/icon-${size}.png`, import.meta.url), png(size));
