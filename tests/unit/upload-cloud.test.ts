// Cloud upload rules that need no store: settings and their messages (spec §5), member prefixes and
// keys, the COS policy, the offline STS tokens, and q-sign against cos-js-sdk-v5's own signer.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { cloudSettingsProblem, keyInPrefix, memberPrefix, readCloudSettings } from '../../src/lib/server/upload/cloud-settings';
import { areaOfKey, cloudKey } from '../../src/lib/server/upload/cloud-store';
import { keyOfPublicUrl, storeFor } from '../../src/lib/server/upload/cloud-api';
import { isCloudPackage } from '../../src/lib/server/upload/cloud-packages';
import { cosPolicy, issueLocalCredentials, localSecretKey, COS_CREDENTIAL_TTL } from '../../src/lib/server/upload/cos';
import { openLocalToken, qSign } from '../helpers/cos-sign';

const cfg = (entries: Record<string, string>): Map<string, string> => new Map(Object.entries(entries));

describe('cloud settings', () => {
  it('reads bucket, region, endpoint and public URL from upload_params, keys only from the environment', () => {
    const s = readCloudSettings(cfg({ upload_mode: 's3', upload_params: JSON.stringify({ bucket: 'media', region: 'eu-west-1', endpoint: 'https://s3.example.com/', publicUrl: 'https://cdn.example.com/' }) }),
      { S3_ACCESS_KEY_ID: 'AK', S3_SECRET_ACCESS_KEY: 'SK' });
    expect(s).toMatchObject({ mode: 's3', bucket: 'media', region: 'eu-west-1', endpoint: 'https://s3.example.com', publicUrl: 'https://cdn.example.com', accessKeyId: 'AK', secretAccessKey: 'SK' });
    expect(cloudSettingsProblem(s)).toBeNull();
    const fromEnv = readCloudSettings(cfg({ upload_mode: 'cos' }), { COS_BUCKET: 'atrium-1250000000', COS_REGION: 'ap-guangzhou', COS_SECRET_ID: 'id', COS_SECRET_KEY: 'key' });
    expect(fromEnv).toMatchObject({ mode: 'cos', bucket: 'atrium-1250000000', region: 'ap-guangzhou', accessKeyId: 'id' });
    expect(readCloudSettings(cfg({ upload_mode: 'ftp' })).mode).toBe('local');
  });

  it('says what is missing or malformed in the COS SDK words (spec §5)', () => {
    const base = { upload_mode: 'cos' };
    const problem = (params: Record<string, string>, env: Record<string, string> = { COS_SECRET_ID: 'a', COS_SECRET_KEY: 'b' }): string | null =>
      cloudSettingsProblem(readCloudSettings(cfg({ ...base, upload_params: JSON.stringify(params) }), env));
    expect(problem({ region: 'ap-guangzhou' })).toBe('missing param Bucket');
    expect(problem({ bucket: 'atrium-1250000000' })).toBe('missing param Region');
    expect(problem({ bucket: 'atrium', region: 'ap-guangzhou' })).toBe('Bucket should format as "test-1250000000".');
    expect(problem({ bucket: 'atrium-1250000000', region: 'AP_GZ' })).toBe('Region format error.');
    expect(problem({ bucket: 'atrium-1250000000', region: 'cos.ap-guangzhou' })).toBe('param Region should not be start with "cos."');
    expect(problem({ bucket: 'atrium-1250000000', region: 'ap-guangzhou' }, {})).toBe('missing param SecretId');
    expect(problem({ bucket: 'atrium-1250000000', region: 'ap-guangzhou' })).toBeNull();
  });
});

describe('member prefixes and keys', () => {
  it('keeps every key strictly inside the member prefix', () => {
    expect(memberPrefix(7)).toBe('uploads/7/');
    expect(memberPrefix(7, 'private')).toBe('private/7/');
    expect(keyInPrefix('uploads/7/a/b.png', 'uploads/7/')).toBe(true);
    for (const bad of ['uploads/7/', 'uploads/70/a.png', 'uploads/7/../8/a.png', 'uploads/7//a.png', 'uploads/7/.hidden', 'uploads/7/a\u0000.png', 'x/uploads/7/a.png']) {
      expect(keyInPrefix(bad, 'uploads/7/'), bad).toBe(false);
    }
  });

  it('builds the key from the save-name template under the prefix', () => {
    const now = new Date(Date.UTC(2026, 10, 25, 8, 0, 0));
    const key = cloudKey(7, { name: 'My Photo (1).PNG', size: 10, type: 'image/png', sha1: 'a'.repeat(40), topic: 'avatar' },
      { saveName: '/storage/{topic}/{year}{mon}{day}/{fileName}{fileSha1}{.suffix}', timeZone: 'UTC', maxSize: 1, allowedSuffixes: '', allowedMimeTypes: '' }, now);
    expect(key).toBe(`uploads/7/avatar/20261125/MyPhoto(1)${'a'.repeat(40)}.png`.replace('(1)', '1'));
    expect(keyInPrefix(key, 'uploads/7/')).toBe(true);
    const evil = cloudKey(7, { name: '../../x.png', size: 1, type: '', sha1: 'b'.repeat(40), topic: '..' },
      { saveName: '/../{topic}/../{fileName}{.suffix}', timeZone: 'UTC', maxSize: 1, allowedSuffixes: '', allowedMimeTypes: '' }, now);
    expect(keyInPrefix(evil, 'uploads/7/')).toBe(true);
  });
});

describe('COS credentials', () => {
  it('allow only the put and multipart calls on the member prefix of the bucket', () => {
    const policy = cosPolicy('atrium-1250000000', 'ap-guangzhou', 'uploads/7/');
    expect(policy.statement).toEqual([{
      action: ['name/cos:PutObject', 'name/cos:PostObject', 'name/cos:InitiateMultipartUpload', 'name/cos:ListMultipartUploads', 'name/cos:ListParts', 'name/cos:UploadPart', 'name/cos:CompleteMultipartUpload', 'name/cos:AbortMultipartUpload'],
      effect: 'allow', principal: { qcs: ['*'] }, resource: ['qcs::cos:ap-guangzhou:uid/1250000000:atrium-1250000000/uploads/7/*'],
    }]);
    expect(JSON.stringify(policy)).not.toMatch(/GetBucket|DeleteObject|PutBucket|atrium-1250000000\/\*"/);
  });

  it('offline tokens carry their policy, last 900 s, and cannot be forged', () => {
    const now = 1_800_000_000;
    const c = issueLocalCredentials('master', 'atrium-1250000000', 'uploads/7/', now);
    expect(c.expiredTime - c.startTime).toBe(COS_CREDENTIAL_TTL);
    expect(c.tmpSecretKey).toBe(localSecretKey('master', c.sessionToken));
    expect(openLocalToken('master', c.sessionToken, now)).toMatchObject({ ak: c.tmpSecretId, bucket: 'atrium-1250000000', prefix: 'uploads/7/' });
    expect(openLocalToken('master', c.sessionToken, now + 900)).toBeNull();
    expect(openLocalToken('other', c.sessionToken, now)).toBeNull();
    const [payload, sig] = c.sessionToken.split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), prefix: 'uploads/' })).toString('base64url');
    expect(openLocalToken('master', `${forged}.${sig}`, now)).toBeNull();
  });

  it('q-sign equals what cos-js-sdk-v5 computes', () => {
    const require = createRequire(import.meta.url);
    const COS = require('cos-js-sdk-v5') as { getAuthorization(o: Record<string, unknown>): string };
    const cases: { method: string; key: string; query: Record<string, string>; headers: Record<string, string> }[] = [
      { method: 'PUT', key: 'uploads/7/a b (1).png', query: { partNumber: '3', uploadId: 'abc==' }, headers: { host: '127.0.0.1:9100', 'content-md5': 'xyz==', 'x-cos-meta-sha1': 'ff' } },
      { method: 'GET', key: '', query: { uploads: '', prefix: 'uploads/7/x.zip' }, headers: { host: 'atrium-1250000000.localhost:9100' } },
    ];
    for (const c of cases) {
      const keyTime = '1800000000;1800000900';
      const sdk = COS.getAuthorization({ SecretId: 'AKIDx', SecretKey: 'secret', Method: c.method, Pathname: `/${c.key}`, Query: c.query, Headers: c.headers, KeyTime: keyTime });
      expect(qSign({ secretId: 'AKIDx', secretKey: 'secret', method: c.method, pathname: `/${c.key}`, query: c.query, headers: c.headers, keyTime })).toBe(sdk);
    }
  });
});

describe('private packages and public image URLs', () => {
  const store = (settings: Record<string, string>) => storeFor(readCloudSettings(cfg({ upload_mode: 's3', upload_params: JSON.stringify({ bucket: 'media', region: 'us-east-1', ...settings }) }), { S3_ACCESS_KEY_ID: 'AK', S3_SECRET_ACCESS_KEY: 'SK' }));

  it('tells the private area (module packages) from the public one by the key', () => {
    expect(areaOfKey('private/7/package/x.zip')).toBe('private');
    expect(areaOfKey('uploads/7/module/x.png')).toBe('uploads');
    expect(areaOfKey('privatex/7/x.zip')).toBe('uploads');
    expect(isCloudPackage('/private/7/package/x.zip')).toBe(true);
    // Local packages are paths under DATA_DIR/packages.
    expect(isCloudPackage('202611/abc.zip')).toBe(false);
    expect(isCloudPackage('/uploads/7/x.zip')).toBe(false);
  });

  it('maps a public URL of the store back to its uploads/ key, and nothing else', () => {
    const cdn = store({ publicUrl: 'https://cdn.example.com' });
    const url = cdn.publicUrl('uploads/7/module/a b.png');
    expect(url).toBe('https://cdn.example.com/uploads/7/module/a%20b.png');
    expect(keyOfPublicUrl(cdn, url)).toBe('uploads/7/module/a b.png');
    expect(keyOfPublicUrl(cdn, cdn.publicUrl('private/7/package/x.zip'))).toBeNull();
    expect(keyOfPublicUrl(cdn, 'https://evil.example.com/uploads/7/module/a.png')).toBeNull();
    expect(keyOfPublicUrl(cdn, 'https://cdn.example.com.evil.example/uploads/7/a.png')).toBeNull();
    expect(keyOfPublicUrl(cdn, 'https://cdn.example.com/uploads/7/%E0%A4%A.png')).toBeNull();
    // Path-style endpoint without a public URL: endpoint/bucket/key.
    const swift = store({ endpoint: 'http://127.0.0.1:18080' });
    expect(keyOfPublicUrl(swift, 'http://127.0.0.1:18080/media/uploads/3/x.png')).toBe('uploads/3/x.png');
    expect(keyOfPublicUrl(swift, 'http://127.0.0.1:18080/other/uploads/3/x.png')).toBeNull();
  });
});

describe('a store refusing settings that looked complete', () => {
  it('answers "Cloud storage is not fully configured" at callback time, not a server error', async () => {
    const { finishCloudUpload, StoreRefused } = await import('../../src/lib/server/upload/cloud-store');
    const { AppError } = await import('../../src/lib/server/http');
    const refused = Object.assign(new Error('PermanentRedirect: the bucket is in another region'), { $metadata: { httpStatusCode: 301 } });
    const store = { driver: 's3', head: () => Promise.reject(refused) } as unknown as Parameters<typeof finishCloudUpload>[1];
    const settings = { maxSize: 10 * 1024 * 1024, allowedSuffixes: 'png', allowedMimeTypes: '', saveName: '', timeZone: 'UTC' } as Parameters<typeof finishCloudUpload>[4];
    const input = { url: '/uploads/7/20261127/a.png', name: 'a.png', size: 10, type: 'image/png', sha1: 'a'.repeat(40), topic: 'default' };
    const failure = await finishCloudUpload(null as never, store, 7, input, settings, async () => null).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(AppError);
    expect(failure).toBeInstanceOf(StoreRefused);
    expect((failure as InstanceType<typeof AppError>).key).toBe('upload.notConfigured');
    expect((failure as InstanceType<typeof StoreRefused>).reason).toBe(refused);
  });
});
