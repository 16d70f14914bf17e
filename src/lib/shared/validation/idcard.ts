// PRC resident identity card numbers (GB 11643-1999): six digits of region, eight of birth date,
// three of sequence and an ISO 7064 MOD 11-2 check character.

const WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2] as const;
const CHECK = '10X98765432';

/** First two digits of every province-level division (GB/T 2260), with Taiwan, Hong Kong and Macao. */
const PROVINCES = new Set([
  '11', '12', '13', '14', '15', '21', '22', '23', '31', '32', '33', '34', '35', '36', '37',
  '41', '42', '43', '44', '45', '46', '50', '51', '52', '53', '54', '61', '62', '63', '64', '65',
  '71', '81', '82',
]);

/** The check character the first 17 digits call for. */
export function idCheckChar(first17: string): string {
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += Number(first17[i]) * WEIGHTS[i]!;
  return CHECK[sum % 11]!;
}

/** Whether YYYYMMDD is a real calendar day between 1900-01-01 and today. */
function validBirth(yyyymmdd: string, today: Date): boolean {
  const year = Number(yyyymmdd.slice(0, 4));
  const month = Number(yyyymmdd.slice(4, 6));
  const day = Number(yyyymmdd.slice(6, 8));
  if (year < 1900 || month < 1 || month > 12 || day < 1) return false;
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return false;
  // The card's date is local to China: compare with today in UTC+8 so a birth today is accepted.
  const china = new Date(today.getTime() + 8 * 3600_000);
  return date.getTime() <= Date.UTC(china.getUTCFullYear(), china.getUTCMonth(), china.getUTCDate());
}

/** An 18-character ID number with a plausible region, a real birth date and the right check character; `x` counts as `X`. */
export function isValidIdNumber(value: string, today: Date = new Date()): boolean {
  if (!/^\d{17}[\dXx]$/.test(value)) return false;
  if (!PROVINCES.has(value.slice(0, 2))) return false;
  if (!validBirth(value.slice(6, 14), today)) return false;
  return idCheckChar(value) === value[17]!.toUpperCase();
}

/** The number as members see it: the first and last four characters, e.g. `1101**********123X`. */
export function maskIdNumber(value: string): string {
  if (value.length <= 8) return '*'.repeat(value.length);
  return `${value.slice(0, 4)}${'*'.repeat(value.length - 8)}${value.slice(-4)}`;
}
