import type zh from '../zh-cn/area';
import type { Messages } from '../types';

/** Administrative divisions. */
export default {
  'area.province': 'Province',
  'area.city': 'City',
  'area.district': 'District',
  'area.choose': 'Choose…',
  'area.loading': 'Loading…',
  'area.failed': 'Could not load, retry',
  'area.provinceInvalid': 'The province code must be 2 digits',
  'area.cityInvalid': 'The city code must be 4 digits',
  'area.cityNeedsProvince': 'Give the province code together with the city code',
} as const satisfies Messages<typeof zh>;
