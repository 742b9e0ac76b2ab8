import { Agent, request } from 'node:http';

const agent = new Agent({ keepAlive: true, maxFreeSockets: Infinity });
// About what a leaf's prompt weighs in Tierflow's Fleet (a system prompt, the subtask, its schema).
const PROMPT = 'x'.repeat(4000);

/** One chat completion at the OpenAI-compatible `baseURL` over plain `node:http`; resolves with the answer's content. */
export function plainModelCall(baseURL: string, index: number): Promise<string> {
  const body = JSON.stringify({ model: 'fleet-bench-model', max_tokens: 200, messages: [{ role: 'user', content: `${PROMPT} leaf ${index}` }] });
  const url = new URL(`${baseURL.replace(/\/$/, '')}/chat/completions`);
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: 'Bearer bench' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        if (res.statusCode !== 200) return reject(new Error(`model server answered ${res.statusCode}`));
        const answer = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { choices: { message: { content: string } }[] };
        resolve(answer.choices[0]?.message.content ?? '');
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
