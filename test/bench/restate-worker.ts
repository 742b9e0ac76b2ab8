// One tier of the Restate version of the bench shape, as its own process (restate-shape.ts):
//   node test/dist/bench/restate-worker.js <tier>
// serves the tier's service on a free port, prints "ready <port>", and stops on SIGTERM. Each tier
// calls the one below through Restate, durably, as the BullMQ shape adds child jobs.
import * as restate from '@restatedev/restate-sdk';
import { BELOW, FAN_OUT, SHAPE_TIERS, type ShapeTier } from './bullmq-jobs.js';

const tier = process.argv[2] as ShapeTier;
if (!SHAPE_TIERS.includes(tier)) throw new Error(`unknown tier ${process.argv[2]}`);
const below = BELOW[tier];

interface Call {
  readonly index: number;
}

const service = restate.service({
  name: tier,
  handlers: {
    run: async (ctx: restate.Context, call: Call | undefined): Promise<unknown> => {
      if (below === null) return { ok: true, index: call?.index ?? 0 };
      const lower = ctx.serviceClient<typeof service>({ name: below });
      const children = await restate.RestatePromise.all(Array.from({ length: FAN_OUT[tier] }, (_, index) => lower.run({ index })));
      return { ok: true, children };
    },
  },
});

const port = await restate.serve({ services: [service], port: 0 });
process.stdout.write(`ready ${port}\n`);
process.once('SIGTERM', () => process.exit(0));
