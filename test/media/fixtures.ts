import sharp from 'sharp'

/** Words a phone puts in a photo, searched for in the bytes Roost serves. */
export const ARTIST = 'Jane Photographer'
export const MAKE = 'RoostCam'
export const COMMENT = 'Shot at Jane home'

/** An XMP packet with the position (its `exif:GPS…` names are what the byte search for 'GPS' finds). */
const XMP =
  '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">' +
  '<rdf:Description rdf:about="" xmlns:exif="http://ns.adobe.com/exif/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">' +
  `<exif:GPSLatitude>48,51.4N</exif:GPSLatitude><exif:GPSLongitude>2,21.1E</exif:GPSLongitude><dc:creator>${ARTIST}</dc:creator>` +
  '</rdf:Description></rdf:RDF></x:xmpmeta>'

const segment = (marker: number, body: Buffer) => {
  const head = Buffer.alloc(4)
  head.writeUInt8(0xff, 0)
  head.writeUInt8(marker, 1)
  head.writeUInt16BE(body.length + 2, 2)
  return Buffer.concat([head, body])
}

/** An IPTC block (APP13, Photoshop 3.0 / 8BIM 0x0404) naming the photographer (2:80 By-line). */
function iptc() {
  const byline = Buffer.concat([Buffer.from([0x1c, 0x02, 0x50, 0x00, ARTIST.length]), Buffer.from(ARTIST)])
  const resource = Buffer.concat([
    Buffer.from('8BIM'),
    Buffer.from([0x04, 0x04, 0x00, 0x00]),
    Buffer.from([0, 0, 0, byline.length]),
    byline,
    byline.length % 2 ? Buffer.from([0]) : Buffer.alloc(0),
  ])
  return segment(0xed, Buffer.concat([Buffer.from('Photoshop 3.0\0'), resource]))
}

/**
 * A JPEG as a phone writes it: EXIF (camera make, artist, a GPS block, `orientation`), XMP with the position, an
 * IPTC by-line, a comment, and a Display P3 ICC profile. Its stored pixels are red with a blue top-left corner, so
 * that where the corner lands tells how it was turned.
 */
export async function phonePhoto(width: number, height: number, orientation = 1): Promise<Buffer> {
  const corner = await sharp({
    create: { width: 40, height: 40, channels: 3, background: { r: 0, g: 0, b: 255 } },
  })
    .png()
    .toBuffer()
  const jpeg = await sharp({ create: { width, height, channels: 3, background: { r: 255, g: 0, b: 0 } } })
    .composite([{ input: corner, left: 0, top: 0 }])
    .withMetadata({ orientation })
    .withExif({
      IFD0: { Make: MAKE, Model: `${MAKE} 12`, Artist: ARTIST },
      IFD3: { GPSLatitudeRef: 'N', GPSLongitudeRef: 'E', GPSMapDatum: 'WGS-84' },
    })
    .withIccProfile('p3')
    .withXmp(XMP)
    .jpeg({ quality: 90 })
    .toBuffer()
  // The comment and the IPTC block, which sharp does not write, go right after the SOI marker.
  return Buffer.concat([jpeg.subarray(0, 2), segment(0xfe, Buffer.from(COMMENT)), iptc(), jpeg.subarray(2)])
}

/** The words of the photo that must be gone from a served file. */
export const TELLTALES = [ARTIST, MAKE, COMMENT, 'GPS', 'WGS-84']

/** Which telltales `data` still holds (empty when clean). */
export const telltalesIn = (data: Buffer) => TELLTALES.filter((word) => data.includes(word))

/** The colour at (x, y): 'blue', 'red' or what else. */
export async function colourAt(data: Buffer, x: number, y: number) {
  const { data: raw, info } = await sharp(data).removeAlpha().raw().toBuffer({ resolveWithObject: true })
  const at = (y * info.width + x) * info.channels
  const [r, g, b] = [raw[at]!, raw[at + 1]!, raw[at + 2]!]
  return b > 150 && r < 100 ? 'blue' : r > 150 && b < 100 ? 'red' : `rgb(${r},${g},${b})`
}

export const download = async (url: string) => {
  const res = await fetch(url)
  if (res.status !== 200) throw new Error(`${url}: ${res.status}`)
  return Buffer.from(await res.arrayBuffer())
}
