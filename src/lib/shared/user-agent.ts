// A User-Agent header in a few words ("Chrome 131 · Windows") for login histories; the full header
// stays available beside it. Order matters: Edge and Opera also say Chrome, Chrome also says Safari.
const BROWSERS: [string, RegExp][] = [
  ['Edge', /\bEdg(?:e|A|iOS)?\/(\d+)/],
  ['Opera', /\bOPR\/(\d+)/],
  ['Samsung Internet', /\bSamsungBrowser\/(\d+)/],
  ['WeChat', /\bMicroMessenger\/(\d+)/],
  ['Firefox', /\b(?:Firefox|FxiOS)\/(\d+)/],
  ['Headless Chrome', /\bHeadlessChrome\/(\d+)/],
  ['Chrome', /\b(?:Chrome|CriOS)\/(\d+)/],
  ['Safari', /\bVersion\/(\d+)[\d.]* (?:Mobile\/\S+ )?Safari\//],
  ['curl', /^curl\/(\d+)/],
  ['Node.js', /^node(?:-fetch)?\b|^undici\b/],
];

const SYSTEMS: [string, RegExp][] = [
  ['Android', /\bAndroid\b/],
  ['iOS', /\b(?:iPhone|iPad|iPod)\b/],
  ['Windows', /\bWindows\b/],
  ['macOS', /\bMac OS X\b|\bMacintosh\b/],
  ['ChromeOS', /\bCrOS\b/],
  ['Linux', /\bLinux\b/],
];

/** Browser and major version, then the system; the header's start when neither is known; '' for none. */
export function describeUserAgent(ua: string): string {
  if (!ua) return '';
  let browser = '';
  for (const [name, re] of BROWSERS) {
    const m = re.exec(ua);
    if (m) { browser = m[1] ? `${name} ${m[1]}` : name; break; }
  }
  const system = SYSTEMS.find(([, re]) => re.test(ua))?.[0] ?? '';
  const parts = [browser, system].filter(Boolean);
  return parts.length ? parts.join(' · ') : ua.slice(0, 40);
}
