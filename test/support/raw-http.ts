import { request } from 'node:http';

/** An answer as it came, body as text. */
export interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

export interface RawRequest {
  readonly method?: string;
  /** Sent as they are, `Host` included: what a browser or an attacker's page would send. */
  readonly headers?: Record<string, string>;
  readonly body?: string | Buffer;
}

/**
 * One HTTP/1.1 request with exactly the headers given (fetch would set or refuse some, such as
 * Host and Origin), on a connection of its own.
 */
export function rawRequest(url: string, options: RawRequest = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: options.method ?? 'GET',
        headers: options.headers ?? {},
        agent: false,
        setHost: !options.headers?.host,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/**
 * Uploads `totalBytes` of filler (chunked, unless `headers` give a Content-Length) and stops
 * sending once the answer comes. Resolves with the answer and how much was sent by then: a
 * server that refuses early has the rest never sent.
 */
export function streamUpload(url: string, headers: Record<string, string>, totalBytes: number): Promise<{ status: number; sentBytes: number }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    let sentBytes = 0;
    let answered = false;
    const req = request({ host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers, agent: false }, (res) => {
      answered = true;
      res.resume();
      res.on('end', () => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, sentBytes });
      });
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (answered) return;
      // The server stopped taking the body and closed the connection before this client read its
      // answer (a refusal it races with): status 0, and how much went out before it.
      if (error.code === 'EPIPE' || error.code === 'ECONNRESET') {
        answered = true;
        resolve({ status: 0, sentBytes });
      } else reject(error);
    });
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const pump = (): void => {
      while (!answered && sentBytes < totalBytes) {
        sentBytes += chunk.length;
        if (!req.write(chunk)) {
          req.once('drain', pump);
          return;
        }
      }
      if (!answered) req.end();
    };
    pump();
  });
}
