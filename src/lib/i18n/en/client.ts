import type zh from '../zh-cn/client';
import type { Messages } from '../types';

export default {
  'http.302': 'Interface redirected!',
  'http.400': 'Incorrect parameter!',
  'http.401': 'You do not have permission to operate!',
  'http.403': 'You do not have permission to operate!',
  'http.404': 'Error requesting address:',
  'http.408': 'Request timed out!',
  'http.409': 'The same data already exists in the system!',
  'http.413': 'The request is too large!',
  'http.429': 'Too many requests, please try again later!',
  'http.500': 'Server internal error!',
  'http.501': 'Service not implemented!',
  'http.502': 'Gateway error!',
  'http.503': 'Service unavailable!',
  'http.504': 'The service is temporarily unavailable Please try again later!',
  'http.505': 'HTTP version is not supported!',
  'http.other': 'Abnormal problem, please contact the website administrator!',
  'net.timeout': 'Network request timeout!',
  'net.error': 'Server exception!',
  'net.offline': 'You are disconnected!',
  'op.success': 'Operation successful',
  'nav.unknownMenuType': 'Navigation failed, the menu type is unrecognized!',
  'notify.close': 'Close',
  'loading': 'Loading…',
} as const satisfies Messages<typeof zh>;
