import { describe, expect, it } from 'vitest';
import { idCheckChar, isValidIdNumber, maskIdNumber } from '../../src/lib/shared/validation/idcard';
import { DeveloperApplyInput, ReviewDecisionInput, maskMobile } from '../../src/lib/shared/validation/developer';
import { translateAny } from '../../src/lib/i18n';

/** The check character computed here from the standard (GB 11643-1999), independently of the code under test. */
function withCheck(first17: string): string {
  const weights = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
  const sum = [...first17].reduce((acc, d, i) => acc + Number(d) * weights[i]!, 0);
  return first17 + '10X98765432'[sum % 11]!;
}

const TODAY = new Date('2024-06-15T04:00:00Z');

describe('ID numbers (GB 11643-1999)', () => {
  it('accepts the textbook example and numbers with a computed check character', () => {
    expect(isValidIdNumber('11010519491231002X', TODAY)).toBe(true);
    for (const first17 of ['44030419900307123', '31011519850101001', '65010220000229004', '81000019700101001', '51010719000101002']) {
      expect(isValidIdNumber(withCheck(first17), TODAY), first17).toBe(true);
    }
  });

  it('agrees with the standard on the check character for every remainder', () => {
    const seen = new Set<string>();
    for (let seq = 0; seq < 200; seq++) {
      const first17 = `3101151985010${String(seq).padStart(3, '0')}0`.slice(0, 17);
      const expected = withCheck(first17).slice(-1);
      expect(idCheckChar(first17)).toBe(expected);
      seen.add(expected);
    }
    expect(seen.size).toBe(11);
  });

  it('takes a lower-case x as X', () => {
    expect(isValidIdNumber('11010519491231002x', TODAY)).toBe(true);
  });

  it('refuses a wrong check character', () => {
    expect(isValidIdNumber('110105194912310021', TODAY)).toBe(false);
    const good = withCheck('44030419900307123');
    const wrong = good.slice(0, 17) + (good.endsWith('0') ? '1' : '0');
    expect(isValidIdNumber(wrong, TODAY)).toBe(false);
  });

  it.each([
    ['February 30th', '44030419900230123'],
    ['February 29th of a year that is not leap (1900)', '44030419000229123'],
    ['month 13', '44030419901301123'],
    ['day 0', '44030419900100123'],
    ['before 1900', '44030418991231123'],
    ['tomorrow', '44030420240616123'],
  ])('refuses a birth date that is impossible: %s', (_, first17) => {
    expect(isValidIdNumber(withCheck(first17), TODAY)).toBe(false);
  });

  it('accepts a leap day and someone born today (China time)', () => {
    expect(isValidIdNumber(withCheck('44030420000229123'), TODAY)).toBe(true);
    expect(isValidIdNumber(withCheck('44030420240615123'), TODAY)).toBe(true);
    // 2024-06-15 20:00 UTC is already the 16th in China.
    expect(isValidIdNumber(withCheck('44030420240616123'), new Date('2024-06-15T20:00:00Z'))).toBe(true);
  });

  it.each(['00', '10', '16', '24', '47', '66', '70', '80', '83', '99'])('refuses region %s', (region) => {
    expect(isValidIdNumber(withCheck(`${region}030419900307123`), TODAY)).toBe(false);
  });

  it('refuses the wrong length, the old 15-digit form, letters and an X not at the end', () => {
    const good = withCheck('44030419900307123');
    expect(isValidIdNumber(good.slice(0, 17), TODAY)).toBe(false);
    expect(isValidIdNumber(`${good}1`, TODAY)).toBe(false);
    expect(isValidIdNumber('440304900307123', TODAY)).toBe(false);
    expect(isValidIdNumber('4403041990030712A4', TODAY)).toBe(false);
    expect(isValidIdNumber('X40304199003071234', TODAY)).toBe(false);
    expect(isValidIdNumber(` ${good}`, TODAY)).toBe(false);
    expect(isValidIdNumber('', TODAY)).toBe(false);
  });

  it('masks all but the first and last four characters', () => {
    expect(maskIdNumber('11010519491231002X')).toBe('1101**********002X');
    expect(maskIdNumber('1234')).toBe('****');
    expect(maskMobile('13800138000')).toBe('138****8000');
  });
});

describe('the developer application schema', () => {
  const valid = {
    real_name: '张三', id_number: '11010519491231002x', mobile: '13800138000', email: 'dev@example.com',
    province: '44', city: '4403', intro: 'I build editor plugins for Atrium.',
  };

  it('accepts a complete application and stores the check character upper-case', () => {
    const parsed = DeveloperApplyInput.parse(valid);
    expect(parsed.id_number).toBe('11010519491231002X');
  });

  it.each([
    ['id_number', '110105194912310021', 'developer.field.idNumber'],
    ['id_number', '11010519490231002X', 'developer.field.idNumber'],
    ['mobile', '12800138000', 'validation.mobile'],
    ['real_name', '<b>Zhang</b>', 'developer.field.realName'],
    ['real_name', 'Z', 'developer.field.realName'],
    ['province', '440000', 'developer.field.province'],
    ['city', '3101', 'developer.field.city'],
    ['intro', 'too short', 'developer.field.intro'],
  ])('refuses %s %j with %s', (field, value, key) => {
    const result = DeveloperApplyInput.safeParse({ ...valid, [field]: value });
    expect(result.success).toBe(false);
    expect(result.error!.issues.find((i) => i.path[0] === field)?.message).toBe(key);
  });

  it('words the ID number and mobile messages as the issue asks, in both languages', () => {
    expect(translateAny('en', 'developer.field.idNumber')).toBe('Please enter the correct ID number');
    expect(translateAny('zh-cn', 'developer.field.idNumber')).toBe('请输入正确的身份证号码');
    expect(translateAny('en', 'validation.mobile')).toBe('Please enter the correct mobile number');
  });

  it('asks a reviewer for a reason to reject, not to approve', () => {
    expect(ReviewDecisionInput.safeParse({ type: 'developer', id: 3, approve: true }).success).toBe(true);
    const rejected = ReviewDecisionInput.safeParse({ type: 'module', id: 3, approve: false, reason: '  ' });
    expect(rejected.error?.issues[0]?.message).toBe('developer.field.reason');
  });
});
