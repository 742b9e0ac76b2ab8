// BullMQ ships its Lua scripts as modules without declarations; the runtime reads one's source
// (redis/job-finisher.ts). bullmq-keys.test.ts and job-finisher.test.ts run it against BullMQ.
declare module 'bullmq/dist/cjs/scripts/moveToFinished-14.js' {
  export const moveToFinished: { readonly name: string; readonly content: string; readonly keys: number };
}
