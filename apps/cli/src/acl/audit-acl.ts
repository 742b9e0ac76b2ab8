import { auditKey } from '@tierflow/runtime/admin';

/**
 * What the tiers and the client may do to a run's audit stream: add, keep alive, read (its
 * counts too, which `tierflow audit --verify` compares), and run the append script that chains an
 * entry to the last (EVAL/EVALSHA with the stream as its key; inside it each command is checked
 * again, so a script can do to a trail only what these allow).
 */
export const AUDIT_STREAM_COMMANDS = ['+xadd', '+pexpire', '+xrange', '+xrevrange', '+xlen', '+xinfo|stream', '+eval', '+evalsha'] as const;

/**
 * The audit streams as a Redis 7 ACL selector, for users who must append to them and never take
 * anything away. A user's root rules grant commands to all its keys alike, so the audit keys are
 * left out of them and get this selector instead, whose commands hold for those keys alone: XDEL,
 * XTRIM, DEL, UNLINK, RENAME, SET … on an audit stream are refused (NOPERM), while BullMQ keeps
 * XTRIM and XDEL on the queues' own streams. Trimming and deleting is the admin's. What an ACL
 * cannot do is look at arguments: XADD … MAXLEN or a short PEXPIRE remain possible for code
 * that means harm; the runtime uses neither.
 *
 * `auditAclSelector('{tierflow}')` → `(~{tierflow}:audit:* +xadd +pexpire +xrange +xrevrange +xlen +xinfo|stream +eval +evalsha)`
 */
export function auditAclSelector(escapedPrefix: string): string {
  return `(~${auditKey(escapedPrefix, '*')} ${AUDIT_STREAM_COMMANDS.join(' ')})`;
}
