// The icon browsers ask for at /favicon.ico (for /docs and the dashboard): a 16×16 ICO drawn
// here, a filled disc, so there is no binary file to ship and no 404 in the browser's console.

const SIZE = 16;
const COLOR = [0x4f, 0x46, 0xe5]; // r, g, b

function drawIcon(): Buffer {
  const pixels = Buffer.alloc(SIZE * SIZE * 4); // BGRA, bottom row first; 0 = transparent
  const centre = (SIZE - 1) / 2;
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) {
      if ((x - centre) ** 2 + (y - centre) ** 2 > (SIZE / 2) ** 2) continue;
      pixels.set([COLOR[2], COLOR[1], COLOR[0], 0xff], (y * SIZE + x) * 4);
    }
  }
  const mask = Buffer.alloc(SIZE * 4); // 1-bit AND mask, rows padded to 4 bytes; unused with alpha
  const header = Buffer.alloc(40); // BITMAPINFOHEADER; height counts the image and its mask
  header.writeUInt32LE(40, 0);
  header.writeInt32LE(SIZE, 4);
  header.writeInt32LE(SIZE * 2, 8);
  header.writeUInt16LE(1, 12);
  header.writeUInt16LE(32, 14);
  header.writeUInt32LE(pixels.length + mask.length, 20);
  const image = Buffer.concat([header, pixels, mask]);
  const directory = Buffer.alloc(6 + 16); // ICONDIR (reserved, type 1 = icon, one image) + its entry
  directory.writeUInt16LE(1, 2);
  directory.writeUInt16LE(1, 4);
  directory.writeUInt8(SIZE, 6);
  directory.writeUInt8(SIZE, 7);
  directory.writeUInt16LE(1, 10);
  directory.writeUInt16LE(32, 12);
  directory.writeUInt32LE(image.length, 14);
  directory.writeUInt32LE(directory.length, 18);
  return Buffer.concat([directory, image]);
}

export const FAVICON = drawIcon();
