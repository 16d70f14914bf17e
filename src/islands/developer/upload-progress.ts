// A multipart upload that reports its progress. `fetch` cannot report upload progress, so this one
// call uses XMLHttpRequest, with the same headers and envelope handling as lib/client/api.ts.
import { statusMessage } from '../../lib/client/api';
import { pageLocale } from '../../lib/i18n/client';
import type { Envelope } from '../../lib/shared/codes';

/** Sends `form` to `url`; `onProgress` gets 0…1 as the bytes leave. Resolves with any envelope, code 1 or not. */
export function uploadWithProgress<T>(url: string, form: FormData, onProgress: (fraction: number) => void): Promise<Envelope<T | null>> {
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', url);
    xhr.setRequestHeader('think-lang', pageLocale());
    xhr.setRequestHeader('accept', 'application/json');
    xhr.upload.onprogress = (e) => { if (e.lengthComputable && e.total > 0) onProgress(e.loaded / e.total); };
    const failed = (status: number): void => resolve({ code: 0, msg: statusMessage(status || 500, url), data: null, time: Math.floor(Date.now() / 1000) });
    xhr.onload = () => {
      try {
        const reply = JSON.parse(xhr.responseText) as Envelope<T>;
        if (typeof reply?.code === 'number') { resolve(reply); return; }
      } catch { /* not an envelope */ }
      failed(xhr.status);
    };
    xhr.onerror = () => failed(0);
    xhr.send(form);
  });
}
