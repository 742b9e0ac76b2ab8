import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** PEM files of a throwaway CA, a server certificate for 127.0.0.1 and localhost, and a client certificate. */
export interface TestCertificates {
  readonly ca: string;
  readonly serverCert: string;
  readonly serverKey: string;
  readonly clientCert: string;
  readonly clientKey: string;
}

/**
 * Makes a CA and two certificates it signed in `dir`, with `openssl`, valid for a day: enough for
 * a TLS redis-server (with client certificates required) and its clients in one test.
 *
 * @throws Error when openssl is missing (saying how to get it) or fails.
 */
export async function makeTestCertificates(dir: string): Promise<TestCertificates> {
  const file = (name: string): string => join(dir, name);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  await openssl(['req', '-x509', ...ec, '-keyout', file('ca.key'), '-out', file('ca.crt'), '-days', '1', '-subj', '/CN=tierflow test CA']);
  const leaf = async (name: string, usage: string, extra: string): Promise<void> => {
    await writeFile(file(`${name}.ext`), `basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=${usage}\n${extra}`);
    await openssl(['req', ...ec, '-keyout', file(`${name}.key`), '-out', file(`${name}.csr`), '-subj', `/CN=tierflow test ${name}`]);
    await openssl([
      'x509',
      '-req',
      '-in',
      file(`${name}.csr`),
      '-CA',
      file('ca.crt'),
      '-CAkey',
      file('ca.key'),
      '-CAcreateserial',
      '-days',
      '1',
      '-extfile',
      file(`${name}.ext`),
      '-out',
      file(`${name}.crt`),
    ]);
  };
  await leaf('server', 'serverAuth', 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  await leaf('client', 'clientAuth', '');
  return { ca: file('ca.crt'), serverCert: file('server.crt'), serverKey: file('server.key'), clientCert: file('client.crt'), clientKey: file('client.key') };
}

async function openssl(args: readonly string[]): Promise<void> {
  try {
    await run('openssl', args);
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === 'ENOENT') throw new Error('openssl is not on PATH: install it (Debian/Ubuntu: `apt-get install openssl`) to make test certificates', { cause: error });
    throw new Error(`openssl ${args.join(' ')} failed: ${e.stderr ?? e.message}`, { cause: error });
  }
}
