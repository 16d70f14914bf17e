// html-validate (issue 27) on the HTML the server sends, with the recommended preset. What differs
// from the preset, and why:
import { HtmlValidate, type ConfigData } from 'html-validate';

export const HTML_VALIDATE_CONFIG: ConfigData = {
  extends: ['html-validate:recommended'],
  elements: [
    'html5',
    {
      // Astro writes its island stylesheet (`astro-island{display:contents}`) as a <style> right
      // before the first island of a page, wherever that island is (in a <summary> when the unread
      // badge comes first); browsers apply a <style> in the body as they do in the head. It is the
      // framework's output, not ours: allowed in flow and phrasing content.
      style: { flow: true, phrasing: true },
    },
  ],
  rules: {
    // Syntax colours of highlighted code (shiki: `color` with `--shiki-dark` for the dark theme) are
    // data of each token, not layout; the module tile's hue is a custom property. Everything else
    // inline stays refused.
    'no-inline-style': ['error', { allowedProperties: ['display', 'color', 'background-color'], allowVariables: true }],
    // React's server renderer writes DOM property names (`autoComplete`, `noValidate`, `maxLength`),
    // closes void elements with `/>` and gives boolean attributes an empty value (`checked=""`,
    // `hidden=""`);
    // Astro writes lowercase names, omits the slash and the value. Both spellings are the same
    // valid HTML (attribute names are case-insensitive), so the serialisation style is not checked.
    'attr-case': 'off',
    'void-style': 'off',
    'attribute-boolean-style': 'off',
    'attribute-empty-style': 'off',
    // React's useId gives ids such as `_r1R_d_`: HTML allows any id without spaces (the relaxed
    // check still refuses empty ids and ids with whitespace); the strict form is an HTML4 rule.
    'valid-id': ['error', { relaxed: true }],
    // A list of checkboxes shares its name (the form sends the ticked values as a list), as radio
    // buttons do: the rule's default only lets radios and buttons share one.
    'form-dup-name': ['error', { shared: ['radio', 'checkbox', 'button', 'reset', 'submit'] }],
  },
};

const validator = new HtmlValidate(HTML_VALIDATE_CONFIG);

/** The errors html-validate finds in a page, one line each (rule, message, where). */
export async function htmlErrors(html: string, name: string): Promise<string[]> {
  const report = await validator.validateString(html, name);
  return report.results.flatMap((r) => r.messages.map((m) => `${m.ruleId}: ${m.message} at ${m.selector ?? `${m.line}:${m.column}`}`));
}
