import type { RedisScript } from './scripts.js';

/** An audit stream entry's fields: the entry as JSON, and its link in the run's hash chain. */
export const AUDIT_ENTRY_FIELD = 'e';
export const AUDIT_HASH_FIELD = 'h';

/**
 * The write a lock-fenced batch runs as {@link AUDIT_APPEND_LUA}'s `appendAuditEntry`: Redis runs
 * no script from a script, so the batch's own script carries the function (runWritesLua).
 */
export const AUDIT_APPEND_COMMAND = 'TIERFLOW.AUDIT_APPEND';

/**
 * Lua: the local function `appendAuditEntry(key, entry)`, which appends one entry to a run's
 * audit stream chained to the entry before it: `h = SHA1(previous h .. "\n" .. entry)`, the
 * first entry (or the first after entries written before chaining) chaining to ''. Done in Redis
 * because several processes append to one run's trail at once, and only Redis knows which entry
 * is last. SHA-1 because it is the hash Redis gives scripts; the chain finds a removed or edited
 * entry, and what stops someone who rewrites the whole chain is the ACL that lets no tier
 * delete (docs/operations.md#the-audit-trail-as-a-record). Returns the new entry's id.
 */
export const AUDIT_APPEND_LUA = `
local function appendAuditEntry(key, entry)
  local last = redis.call('XREVRANGE', key, '+', '-', 'COUNT', 1)[1]
  local previous = ''
  if last then
    local fields = last[2]
    for i = 1, #fields - 1, 2 do
      if fields[i] == '${AUDIT_HASH_FIELD}' then previous = fields[i + 1] end
    end
  end
  return redis.call('XADD', key, '*', '${AUDIT_ENTRY_FIELD}', entry, '${AUDIT_HASH_FIELD}', redis.sha1hex(previous .. '\\n' .. entry))
end`;

/**
 * Appends entries to a run's audit trail, each chained to the one before, then sets its TTL.
 *   KEYS[1]   the run's audit stream
 *   ARGV[1]   the TTL in ms; '' leaves the stream's own
 *   ARGV[2]   'NX': set the TTL only on a stream without one; '' always
 *   ARGV[3]   'exists': append only to a stream that exists (an entry about a run that may not be one); '' always
 *   ARGV[4..] the entries, each as JSON
 * Returns how many entries it appended (0 when 'exists' found no stream).
 */
export const APPEND_AUDIT: RedisScript = {
  lua: `${AUDIT_APPEND_LUA}
-- XLEN, not EXISTS: the tiers' ACL selector for audit streams allows the stream commands alone.
if ARGV[3] == 'exists' and redis.call('XLEN', KEYS[1]) == 0 then return 0 end
for i = 4, #ARGV do appendAuditEntry(KEYS[1], ARGV[i]) end
if ARGV[1] ~= '' then
  if ARGV[2] == 'NX' then redis.call('PEXPIRE', KEYS[1], ARGV[1], 'NX') else redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
end
return #ARGV - 3`,
};
