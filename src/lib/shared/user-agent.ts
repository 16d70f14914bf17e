// A User-Agent header in a few words ("Chrome 131 · Windows") for login histories; the full header
// stays available beside it. ua-parser-js reads the header; only its names are tidied for display.
import { UAParser } from 'ua-parser-js';

const BROWSER_NAMES: Record<string, string> = { 'Mobile Safari': 'Safari', 'Chrome Headless': 'Headless Chrome', 'Chrome WebView': 'Chrome' };
const SYSTEM_NAMES: Record<string, string> = { 'Mac OS': 'macOS', 'Chromium OS': 'ChromeOS' };
/** Command-line clients ua-parser-js leaves unnamed. */
const TOOLS: [string, RegExp][] = [['curl', /^curl\/(\d+)/], ['Node.js', /^(?:node(?:-fetch)?|undici)\b/]];

/** Browser and major version, then the system; the header's start when neither is known; '' for none. */
export function describeUserAgent(ua: string): string {
  if (!ua) return '';
  const { browser, os } = new UAParser(ua).getResult();
  let name = browser.name ? `${BROWSER_NAMES[browser.name] ?? browser.name}${browser.major ? ` ${browser.major}` : ''}` : '';
  if (!name) {
    for (const [tool, re] of TOOLS) {
      const m = re.exec(ua);
      if (m) { name = m[1] ? `${tool} ${m[1]}` : tool; break; }
    }
  }
  const system = os.name ? SYSTEM_NAMES[os.name] ?? os.name : '';
  const parts = [name, system].filter(Boolean);
  return parts.length ? parts.join(' · ') : ua.slice(0, 40);
}
