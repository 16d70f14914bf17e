import sanitizeHtml from 'sanitize-html';
import { ALLOWED_ATTRIBUTES, ALLOWED_TAGS, MATHML_TAGS, PLAIN_TAGS } from '../../markdown/allow-list';

// The server's half of the allow-list sanitiser every module's HTML passes before the site stores
// or shows it (src/lib/markdown/allow-list.ts says what is allowed and why). Not allowed is dropped
// with its content for scripts and styles, and unwrapped (its text kept) otherwise.

const attributes = Object.fromEntries([...PLAIN_TAGS, ...MATHML_TAGS].map((tag) => [tag, [...ALLOWED_ATTRIBUTES]]));

const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [...ALLOWED_TAGS],
  allowedAttributes: attributes,
  allowedSchemes: [],
  allowedSchemesAppliedToAttributes: [],
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'template', 'iframe', 'object', 'svg'],
  parser: { lowerCaseTags: true, lowerCaseAttributeNames: true },
};

/** A module's HTML with everything outside the allow-list removed. */
export function sanitizeModuleHtml(html: string): string {
  return sanitizeHtml(html, OPTIONS);
}
