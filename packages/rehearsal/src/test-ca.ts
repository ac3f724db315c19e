import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

export type TestCertificates = {
  /** The CA's certificate (PEM) in a file: what `NODE_EXTRA_CA_CERTS` names. */
  caFile: string
  ca: string
  /** A server certificate for `hostname`, signed by the CA, and its key (PEM). */
  cert: string
  key: string
}

const P256 = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes']

/**
 * A certificate authority made for one run (P-256, valid two days) and a
 * server certificate for `hostname` it signed, written to `folder`: a
 * service trusts the server only through `NODE_EXTRA_CA_CERTS=<caFile>`,
 * as it would trust a private CA in production. Made with the system's
 * `openssl`, which every machine of this project has (Node has no API to
 * issue a certificate).
 */
export const createTestCertificates = async (
  folder: string,
  hostname: string,
): Promise<TestCertificates> => {
  const file = (name: string) => join(folder, name)
  await run('openssl', [
    'req',
    '-x509',
    ...P256,
    '-keyout',
    file('ca.key'),
    '-out',
    file('ca.pem'),
    '-days',
    '2',
    '-subj',
    '/CN=agent-services rehearsal CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign',
  ])
  await run('openssl', [
    'req',
    '-x509',
    '-CA',
    file('ca.pem'),
    '-CAkey',
    file('ca.key'),
    ...P256,
    '-keyout',
    file('server.key'),
    '-out',
    file('server.pem'),
    '-days',
    '2',
    '-subj',
    `/CN=${hostname}`,
    '-addext',
    `subjectAltName=DNS:${hostname}`,
    '-addext',
    'basicConstraints=CA:FALSE',
  ])
  const [ca, cert, key] = await Promise.all(
    ['ca.pem', 'server.pem', 'server.key'].map((name) => readFile(file(name), 'utf8')),
  )
  return { caFile: file('ca.pem'), ca: ca!, cert: cert!, key: key! }
}
