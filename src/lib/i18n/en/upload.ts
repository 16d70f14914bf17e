import type zh from '../zh-cn/upload';
import type { Messages } from '../types';

export default {
  'upload.incomplete': 'The data of the uploaded file is incomplete!',
  'upload.typeNotAllowed': 'The type of uploaded file is not allowed!',
  'upload.tooLarge': 'The size of the uploaded file exceeds the allowed range!',
  'upload.success': 'File uploaded successfully',
  'upload.driverNotSupported': 'Driver {driver} not supported',
  'upload.topicInvalid': 'The topic may only contain letters, digits, underscores and dashes, at most 20 characters',
  'upload.quotaExceeded': "You reached today's upload quota; please try again tomorrow",
  'upload.foreignKey': 'You may not operate on this file',
  'upload.objectMissing': 'The uploaded file is not in the store; please upload it again',
  'upload.sizeMismatch': "The stored file's size differs from the declared size; please upload it again",
  'upload.sha1Mismatch': 'The stored file differs from the one the upload started with; please upload it again',
  'upload.noSuchUpload': 'This multipart upload no longer exists; please upload the file again',
  'upload.notConfigured': 'Cloud storage is not fully configured; please contact the site administrator',
  'upload.paused': '{message}',
} as const satisfies Messages<typeof zh>;
