// Operator commands on the rule tree (issue 28): `rule:add` and `rule:remove`; `rule:list` is in
// cli-admin.ts with the group commands. The audit row is written by the CLI's runner (cli.ts) like
// every changing command's; the rule cache is dropped on every instance by the service.
import type { Runtime } from '../lib/server/runtime';
import { AppError, fieldErrors } from '../lib/server/http';
import { translateAny } from '../lib/i18n';
import { createRule, deleteRule, rulesNamed } from '../lib/server/admin/rules';
import { RuleCreateInput } from '../lib/shared/validation/admin';

interface Io { out(text: string): void; err(text: string): void }

export const RULES_USAGE = `
  rule:add <type> <name> <title> [--parent <rule>] [--title-en <t>] [--path <p>] [--menu-type tab|link|iframe]
           [--url <url>] [--redirect <path or url>] [--extend none|add_rules_only|add_menu_only] [--no-login]
                                                a rule or menu (groups holding its parent get it too)
  rule:remove <rule>                            delete a rule an administrator added (system rules: refused)
`;

const FLAGS: Record<string, string> = {
  '--parent': 'parent', '--title-en': 'title_en', '--path': 'path', '--menu-type': 'menu_type', '--url': 'url',
  '--redirect': 'redirect', '--extend': 'extend', '--icon': 'icon', '--remark': 'remark',
};

/** Runs a rule command; null when the name is not one of them. */
export async function ruleCommand(runtime: Runtime, command: string, rest: string[], io: Io): Promise<number | null> {
  const fail = (err: unknown): number => {
    if (!(err instanceof AppError)) throw err;
    io.err(`${translateAny('en', err.key, err.options.values)}\n`);
    return 1;
  };
  switch (command) {
    case 'rule:add': {
      const positional: string[] = [];
      const named: Record<string, string> = {};
      let noLogin = 0;
      for (let i = 0; i < rest.length; i++) {
        const arg = rest[i]!;
        if (arg === '--no-login') noLogin = 1;
        else if (FLAGS[arg] && rest[i + 1] !== undefined) named[FLAGS[arg]] = rest[++i]!;
        else if (arg.startsWith('--')) { io.err(`Unknown or empty option ${arg}.\n${RULES_USAGE}`); return 2; }
        else positional.push(arg);
      }
      const [type, name, ...title] = positional;
      let pid = 0;
      if (named.parent) {
        const parents = await rulesNamed(runtime.db, named.parent);
        if (parents.length !== 1) { io.err(`No single rule "${named.parent}" (give its id when a name has several types).\n`); return 1; }
        pid = parents[0]!.id;
      }
      const { parent: _parent, ...fields } = named;
      const parsed = RuleCreateInput.safeParse({ type, name, title: title.join(' '), pid, no_login_valid: noLogin, ...fields });
      if (!parsed.success) {
        for (const [field, message] of Object.entries(fieldErrors(parsed.error, 'en'))) io.err(`${field}: ${message}\n`);
        io.err(RULES_USAGE);
        return 2;
      }
      try {
        const { rule, groups } = await createRule(runtime, 'cli', parsed.data);
        io.out(`Rule ${rule.name} (id ${rule.id}, ${rule.type}) added${groups.length ? `; groups ${groups.join(', ')} hold it` : ''}.\n`);
        return 0;
      } catch (err) {
        return fail(err);
      }
    }
    case 'rule:remove': {
      const ref = rest[0];
      if (!ref) { io.err('Usage: rule:remove <rule>\n'); return 2; }
      const found = await rulesNamed(runtime.db, ref);
      if (found.length !== 1) { io.err(found.length ? `"${ref}" names ${found.length} rules: give the id.\n` : `No rule "${ref}".\n`); return 1; }
      try {
        const rule = await deleteRule(runtime, 'cli', found[0]!.id);
        io.out(`Rule ${rule.name} (id ${rule.id}) removed.\n`);
        return 0;
      } catch (err) {
        return fail(err);
      }
    }
    default:
      return null;
  }
}
