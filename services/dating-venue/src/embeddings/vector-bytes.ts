// A vector as a PostgreSQL `bytea`: little-endian float32, 4 bytes a
// dimension, no header (the dimension and model id live in their own columns).
// Little-endian is written explicitly so the bytes do not depend on the host.

/** Encodes `vector` as little-endian float32 bytes (4 × length). */
export const vectorToBytes = (vector: Float32Array): Buffer => {
  const bytes = Buffer.allocUnsafe(vector.length * 4)
  for (let index = 0; index < vector.length; index++) bytes.writeFloatLE(vector[index]!, index * 4)
  return bytes
}

/** Decodes little-endian float32 bytes; throws unless they hold exactly `dimension` values. */
export const vectorFromBytes = (bytes: Buffer | Uint8Array, dimension: number): Float32Array => {
  if (bytes.byteLength !== dimension * 4)
    throw new RangeError(
      `expected ${dimension * 4} bytes for ${dimension} dimensions, got ${bytes.byteLength}`,
    )
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const vector = new Float32Array(dimension)
  for (let index = 0; index < dimension; index++) vector[index] = view.getFloat32(index * 4, true)
  return vector
}
