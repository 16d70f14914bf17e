// `npm run atrium -- rule:add|rule:remove`: the rule tree from the CLI (issue 28); `rule:list` is with
// the group commands (commands.ts). The runner writes the audit row; the service drops the rule cache
// on every instance.
import { fieldErrors } from '../http';
import { refused, registerCommand, stringOption } from '../commands';
import { createRule, deleteRule, rulesNamed } from './rules';
import { RuleCreateInput } from '../../shared/validation/admin';

const ADD_USAGE = 'rule:add <type> <name> <title> [--parent <rule>] [--title-en <t>] [--path <p>] [--menu-type tab|link|iframe] [--url <url>] [--redirect <path or url>] [--extend none|add_rules_only|add_menu_only] [--icon <i>] [--remark <r>] [--no-login]';

/** Options of rule:add and the input fields they fill. */
const FIELDS = { 'title-en': 'title_en', path: 'path', 'menu-type': 'menu_type', url: 'url', redirect: 'redirect', extend: 'extend', icon: 'icon', remark: 'remark' } as const;

registerCommand({
  name: 'rule:add', usage: ADD_USAGE.slice('rule:add '.length), section: 'console',
  options: {
    parent: { type: 'string' }, 'no-login': { type: 'boolean' },
    ...Object.fromEntries(Object.keys(FIELDS).map((k) => [k, { type: 'string' as const }])),
  },
  summary: 'a rule or menu (groups holding its parent get it too; effective on every instance at once)',
  async run(ctx) {
    const { runtime, args: [type, name, ...title], options, out, err } = ctx;
    let pid = 0;
    const parent = stringOption(options, 'parent');
    if (parent) {
      const parents = await rulesNamed(runtime.db, parent);
      if (parents.length !== 1) {
        err(`No single rule "${parent}" (give its id when a name has several types).\n`);
        return 1;
      }
      pid = parents[0]!.id;
    }
    const fields = Object.fromEntries(Object.entries(FIELDS).flatMap(([option, field]) => {
      const value = stringOption(options, option);
      return value === undefined ? [] : [[field, value]];
    }));
    const parsed = RuleCreateInput.safeParse({ type, name, title: title.join(' '), pid, no_login_valid: options['no-login'] ? 1 : 0, ...fields });
    if (!parsed.success) {
      for (const [field, message] of Object.entries(fieldErrors(parsed.error, 'en'))) err(`${field}: ${message}\n`);
      err(`Usage: ${ADD_USAGE}\n`);
      return 2;
    }
    try {
      const { rule, groups } = await createRule(runtime, 'cli', parsed.data);
      out(`Rule ${rule.name} (id ${rule.id}, ${rule.type}) added${groups.length ? `; groups ${groups.join(', ')} hold it` : ''}.\n`);
      return 0;
    } catch (e) {
      return refused(ctx, e);
    }
  },
});

registerCommand({
  name: 'rule:remove', usage: '<rule>', section: 'console',
  summary: 'delete a rule an administrator added (name or id; system rules are refused)',
  async run(ctx) {
    const { runtime, args: [ref], out, err } = ctx;
    if (!ref) {
      err('Usage: rule:remove <rule>\n');
      return 2;
    }
    const found = await rulesNamed(runtime.db, ref);
    if (found.length !== 1) {
      err(found.length ? `"${ref}" names ${found.length} rules: give the id.\n` : `No rule "${ref}".\n`);
      return 1;
    }
    try {
      const rule = await deleteRule(runtime, 'cli', found[0]!.id);
      out(`Rule ${rule.name} (id ${rule.id}) removed.\n`);
      return 0;
    } catch (e) {
      return refused(ctx, e);
    }
  },
});
