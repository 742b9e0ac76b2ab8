import { passwordRule, type AclPasswords } from './acl-passwords.js';
import { ACL_USERS, aclPermissions, DISABLED_DEFAULT_USER } from './acl-users.js';

/**
 * The ACL file (`redis-server --aclfile`) for a prefix: `default` disabled, then one line per
 * user. A user with a password is on, with its hash; one without is off (it cannot log in until
 * given one). Redis ACL files take no comments, so the file is only these lines.
 */
export function aclFileText(prefix: string, passwords: AclPasswords = {}, cells = 1): string {
  const permissions = aclPermissions(prefix, cells);
  const lines = [
    `user default ${DISABLED_DEFAULT_USER.join(' ')}`,
    ...ACL_USERS.map((user) => {
      const password = passwords[user];
      const state = password === undefined ? ['off'] : ['on', passwordRule(password)];
      return `user ${user} ${[...state, ...permissions[user]].join(' ')}`;
    }),
  ];
  return `${lines.join('\n')}\n`;
}
