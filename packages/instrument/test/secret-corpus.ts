// The secret corpus (docs/redaction.md): one real-looking sample of every format the redaction promises to mask,
// and of every usual spelling of a secret key, built here from a fixed seed (random bodies, never real secrets,
// and no literal token in the repository for a scanner to flag). Beside them, ordinary keys and values that
// must come through untouched. The instrument's tests and the end-to-end secret tests run it through every path.

/** One secret as it appears in data: `text` holds it, `needle` is the part that must never be stored. */
export type CorpusEntry = { id: string; rule: string; text: string; needle: string };

// mulberry32: small, fast, and the same sequence on every run.
let state = 0x5eed_0048;
function random(): number {
  state = (state + 0x6d2b79f5) | 0;
  let t = Math.imul(state ^ (state >>> 15), 1 | state);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const pick = (alphabet: string, n: number) =>
  Array.from({ length: n }, () => alphabet.charAt(Math.floor(random() * alphabet.length))).join('');
/** Random characters of `alphabet`, with at least one digit, upper and lower case letter where it has them. */
function body(alphabet: string, n: number): string {
  for (;;) {
    const s = pick(alphabet, n);
    const wants = [/[0-9]/, /[A-Z]/, /[a-z]/].filter((re) => re.test(alphabet));
    if (wants.every((re) => re.test(s))) return s;
  }
}
const alnum = (n: number) => body(ALNUM, n);
const urlSafe = (n: number) => body(`${ALNUM}_-`, n);
const b64 = (n: number) => body(`${ALNUM}+/`, n);
const hex = (n: number) => body('0123456789abcdef', n);
const upperAlnum = (n: number) => body('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', n);
const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A Luhn-valid card number of `length` digits starting with `prefix`. */
function cardNumber(prefix: string, length: number): string {
  let digits = prefix + pick('0123456789', length - prefix.length - 1);
  for (let check = 0; check < 10; check++) {
    const candidate = digits + check;
    let sum = 0;
    for (let i = 0; i < candidate.length; i++) {
      let d = Number(candidate[candidate.length - 1 - i]);
      if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
      sum += d;
    }
    if (sum % 10 === 0) {
      digits = candidate;
      break;
    }
  }
  return digits;
}
const grouped = (digits: string, separator: string) =>
  digits.replace(/(\d{4})(?=\d)/g, `$1${separator}`);

function pem(label: string, firstLine = b64(64)): { text: string; needle: string } {
  const lines = [firstLine, ...Array.from({ length: 7 }, () => b64(64)), `${b64(40)}==`];
  return {
    text: `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----`,
    needle: lines[3] ?? '',
  };
}

const token = (id: string, rule: string, secret: string): CorpusEntry => ({
  id,
  rule,
  text: secret,
  needle: secret.slice(Math.max(4, secret.length - 24)),
});
const inText = (id: string, rule: string, text: string, needle: string): CorpusEntry => ({
  id,
  rule,
  text,
  needle,
});

const jwt = `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url({ sub: '1234567890', name: 'Jane Roe', iat: 1767225600 })}.${urlSafe(43)}`;
const rsa = pem('RSA PRIVATE KEY');
const pkcs8 = pem('PRIVATE KEY');
const ec = pem('EC PRIVATE KEY');
const openssh = pem(
  'OPENSSH PRIVATE KEY',
  `b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtz${b64(4)}`,
);
const pgp = pem('PGP PRIVATE KEY BLOCK');
const dbPassword = `Db-Pw-${alnum(10)}`;
const urlPasswords = [alnum(14), urlSafe(16), alnum(12), alnum(18), alnum(12)];
const free = Array.from({ length: 12 }, () => `${alnum(6)}-${alnum(8)}`);
const gcpKey = pem('PRIVATE KEY');
const gcpKeyId = hex(40);
const visa = cardNumber('4', 16);
const mastercard = cardNumber('51', 16);
const amex = cardNumber('37', 15);
const visaNumber = cardNumber('4', 16);
const azureKey = `${b64(86)}==`;

/** Every format, found by its value wherever it stands. */
export const SECRET_FORMATS: readonly CorpusEntry[] = [
  token('openai-project', 'openai-api-key', `sk-proj-${urlSafe(74)}T3BlbkFJ${urlSafe(74)}`),
  token(
    'openai-service-account',
    'openai-api-key',
    `sk-svcacct-${urlSafe(58)}T3BlbkFJ${urlSafe(58)}`,
  ),
  token('openai-short', 'openai-api-key', `sk-proj-ErrorKey${alnum(6)}`),
  token('openai-legacy', 'openai-api-key-legacy', `sk-${alnum(20)}T3BlbkFJ${alnum(20)}`),
  token('anthropic', 'anthropic-api-key', `sk-ant-api03-${urlSafe(93)}AA`),
  token('anthropic-admin', 'anthropic-api-key', `sk-ant-admin01-${urlSafe(93)}AA`),
  token('github-fine-grained', 'github-fine-grained-pat', `github_pat_${alnum(22)}_${alnum(59)}`),
  ...['ghp', 'gho', 'ghs', 'ghu', 'ghr'].map((p) =>
    token(`github-${p}`, 'github-token', `${p}_${alnum(36)}`),
  ),
  token('gitlab-pat', 'gitlab-token', `glpat-${urlSafe(20)}`),
  token('gitlab-deploy', 'gitlab-token', `gldt-${urlSafe(20)}`),
  token('gitlab-runner', 'gitlab-token', `glrt-${urlSafe(20)}`),
  token('gitlab-registration', 'gitlab-runner-registration-token', `GR1348941${urlSafe(20)}`),
  token('google-api-key', 'gcp-api-key', `AIza${urlSafe(35)}`),
  token('google-oauth-token', 'gcp-oauth-token', `ya29.${urlSafe(120)}`),
  token('google-client-secret', 'gcp-client-secret', `GOCSPX-${urlSafe(28)}`),
  token('aws-access-key-id', 'aws-access-token', `AKIA${upperAlnum(16)}`),
  token('aws-session-key-id', 'aws-access-token', `ASIA${upperAlnum(16)}`),
  token('aws-secret-access-key', 'aws-secret-access-key', b64(40)),
  token('aws-bedrock', 'aws-bedrock-api-key', `ABSK${b64(120)}`),
  token('azure-ad-client-secret', 'azure-ad-client-secret', `${alnum(3)}8Q~${urlSafe(34)}`),
  token('stripe-secret', 'stripe-access-token', `sk_live_${alnum(24)}`),
  token('stripe-restricted', 'stripe-access-token', `rk_live_${alnum(24)}`),
  token('stripe-test', 'stripe-access-token', `sk_test_${alnum(24)}`),
  token('stripe-webhook', 'stripe-webhook-secret', `whsec_${alnum(32)}`),
  token(
    'slack-bot',
    'slack-token',
    `xoxb-${pick('0123456789', 12)}-${pick('0123456789', 12)}-${alnum(24)}`,
  ),
  token(
    'slack-user',
    'slack-token',
    `xoxp-${pick('0123456789', 12)}-${pick('0123456789', 12)}-${alnum(32)}`,
  ),
  token(
    'slack-app',
    'slack-app-token',
    `xapp-1-A${upperAlnum(10)}-${pick('0123456789', 13)}-${hex(64)}`,
  ),
  token(
    'slack-webhook',
    'slack-webhook-url',
    `https://hooks.slack.com/services/T${upperAlnum(8)}/B${upperAlnum(8)}/${alnum(24)}`,
  ),
  token(
    'discord-webhook',
    'discord-webhook-url',
    `https://discord.com/api/webhooks/${pick('0123456789', 18)}/${urlSafe(68)}`,
  ),
  token('npm', 'npm-access-token', `npm_${alnum(36)}`),
  token('pypi', 'pypi-upload-token', `pypi-AgEIcHlwaS5vcmc${urlSafe(70)}`),
  token('huggingface', 'huggingface-access-token', `hf_${alnum(34)}`),
  token('sendgrid', 'sendgrid-api-token', `SG.${urlSafe(22)}.${urlSafe(43)}`),
  token('twilio', 'twilio-api-key', `SK${hex(32)}`),
  token('mailgun', 'mailgun-api-key', `key-${hex(32)}`),
  token('shopify', 'shopify-token', `shpat_${hex(32)}`),
  token('digitalocean', 'digitalocean-token', `dop_v1_${hex(64)}`),
  token('databricks', 'databricks-api-token', `dapi${hex(32)}`),
  token('doppler', 'doppler-api-token', `dp.pt.${alnum(43)}`),
  token('vault', 'vault-token', `hvs.${urlSafe(95)}`),
  token('age', 'age-secret-key', `AGE-SECRET-KEY-1${body('QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L', 58)}`),
  token('grafana-service-account', 'grafana-service-account-token', `glsa_${alnum(32)}_${hex(8)}`),
  token('grafana-cloud', 'grafana-cloud-api-token', `glc_${b64(60)}`),
  token('groq', 'groq-api-key', `gsk_${alnum(52)}`),
  token('xai', 'xai-api-key', `xai-${alnum(80)}`),
  token('perplexity', 'perplexity-api-key', `pplx-${alnum(48)}`),
  token('replicate', 'replicate-api-token', `r8_${alnum(37)}`),
  token('linear', 'linear-api-key', `lin_api_${alnum(40)}`),
  token('notion', 'notion-api-token', `ntn_${pick('0123456789', 11)}${alnum(35)}`),
  token('postman', 'postman-api-token', `PMAK-${hex(24)}-${hex(34)}`),
  token('sentry', 'sentry-token', `sntryu_${hex(64)}`),
  token('atlassian', 'atlassian-api-token', `ATATT3${urlSafe(186)}`),
  token('square', 'square-access-token', `EAAA${urlSafe(60)}`),
  token('facebook', 'facebook-page-access-token', `EAAM${alnum(120)}`),
  token('telegram', 'telegram-bot-api-token', `${pick('123456789', 9)}:AA${urlSafe(33)}`),
  token('heroku', 'heroku-api-key-v2', `HRKU-AA${urlSafe(58)}`),
  token('pulumi', 'pulumi-api-token', `pul-${hex(40)}`),
  token('planetscale', 'planetscale-token', `pscale_tkn_${urlSafe(43)}`),
  token('rubygems', 'rubygems-api-token', `rubygems_${hex(48)}`),
  token('openshift', 'openshift-user-token', `sha256~${urlSafe(43)}`),
  token('dynatrace', 'dynatrace-api-token', `dt0c01.${upperAlnum(24)}.${alnum(64)}`),
  token('flyio', 'flyio-access-token', `fo1_${urlSafe(43)}`),
  token('prefect', 'prefect-api-token', `pnu_${alnum(36)}`),
  token('new-relic', 'new-relic-key', `NRAK-${upperAlnum(27)}`),
  token('sendinblue', 'sendinblue-api-token', `xkeysib-${hex(64)}-${alnum(16)}`),
  token('artifactory', 'artifactory-api-key', `AKCp${alnum(69)}`),
  token('alibaba', 'alibaba-access-key-id', `LTAI${alnum(20)}`),
  token('mapbox', 'mapbox-secret-token', `sk.eyJ${urlSafe(60)}.${urlSafe(22)}`),
  token('onepassword', 'onepassword-service-account-token', `ops_eyJ${b64(260)}`),
  token('jwt', 'jwt', jwt),
  inText('bearer', 'authorization-header', `Authorization: Bearer ${urlSafe(40)}`, ''),
  inText(
    'basic',
    'authorization-header',
    `sent Basic ${Buffer.from(`svc:${free[0]}`).toString('base64')}`,
    '',
  ),
  inText('token-word', 'token-word', `retry with token ${alnum(32)} now`, ''),
  inText('rsa-key', 'private-key', rsa.text, rsa.needle),
  inText('pkcs8-key', 'private-key', pkcs8.text, pkcs8.needle),
  inText('ec-key', 'private-key', ec.text, ec.needle),
  inText('openssh-key', 'private-key', openssh.text, openssh.needle),
  inText('pgp-key', 'private-key', pgp.text, pgp.needle),
  inText(
    'postgres-url',
    'url-credentials',
    `connect failed: postgres://svc:${dbPassword}@db.internal:5432/app`,
    dbPassword,
  ),
  inText(
    'mongodb-url',
    'url-credentials',
    `mongodb+srv://app:${urlPasswords[0]}@cluster0.example.net/db`,
    urlPasswords[0] ?? '',
  ),
  inText(
    'redis-url',
    'url-credentials',
    `redis://:${urlPasswords[1]}@cache:6379/0`,
    urlPasswords[1] ?? '',
  ),
  inText(
    'amqp-url',
    'url-credentials',
    `amqp://guest:${urlPasswords[2]}@rabbit:5672/vhost`,
    urlPasswords[2] ?? '',
  ),
  inText(
    'https-url',
    'url-credentials',
    `https://deploy:${urlPasswords[3]}@registry.example.com/v2/`,
    urlPasswords[3] ?? '',
  ),
  inText('password-assignment', 'assignment', `login failed: password=${free[1]}`, free[1] ?? ''),
  inText('env-file', 'assignment', `DB_PASSWORD=${free[2]}\nAPP_ENV=prod`, free[2] ?? ''),
  inText('yaml', 'assignment', `pwd: ${free[3]}`, free[3] ?? ''),
  inText(
    'ado-connection-string',
    'assignment',
    `Server=db;User Id=sa;Password=${free[4]};Database=orders`,
    free[4] ?? '',
  ),
  inText('api-key-header', 'assignment', `x-api-key: ${free[5]}`, free[5] ?? ''),
  inText(
    'query-token',
    'assignment',
    `GET /callback?access_token=${free[6]}&state=1`,
    free[6] ?? '',
  ),
  inText('client-secret', 'assignment', `client_secret=${free[7]}`, free[7] ?? ''),
  inText('aws-env', 'assignment', `aws_secret_access_key = ${free[8]}`, free[8] ?? ''),
  inText(
    'azure-storage',
    'assignment',
    `DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=${azureKey};EndpointSuffix=core.windows.net`,
    azureKey,
  ),
  inText(
    'json-in-text',
    'assignment',
    `upstream said {"user":"svc","password":"${free[9]}","retry":true`,
    free[9] ?? '',
  ),
  inText('quoted', 'assignment', `secret: "${free[10]} and more"`, free[10] ?? ''),
  inText(
    'email',
    'email',
    'contact jane.roe+orders@example.co.uk today',
    'jane.roe+orders@example.co.uk',
  ),
  inText('visa-spaced', 'card', `card ${grouped(visa, ' ')} declined`, grouped(visa, ' ')),
  inText('mastercard-dashed', 'card', `card ${grouped(mastercard, '-')}`, grouped(mastercard, '-')),
  inText('amex', 'card', `amex ${amex}`, amex),
  inText(
    'gcp-service-account',
    'private-key',
    JSON.stringify({
      type: 'service_account',
      project_id: 'orders-prod',
      private_key_id: gcpKeyId,
      private_key: gcpKey.text,
      client_email: 'orders@orders-prod.iam.gserviceaccount.com',
      auth_provider_x509_cert_url: 'https://www.googleapis.com/oauth2/v1/certs',
    }),
    gcpKey.needle,
  ),
].map((e) => (e.needle === '' ? { ...e, needle: lastWord(e.text) } : e));

function lastWord(text: string): string {
  const words = text.split(/[\s=;:]+/).filter((w) => w.length >= 12);
  return words[words.length - 1] ?? text;
}

/** The GCP key's id: kept secret by its key name (`private_key_id`), inside the service-account JSON. */
export const GCP_KEY_ID = gcpKeyId;
/** A card number as a JSON number. */
export const CARD_NUMBER = Number(visaNumber);

/** Key spellings whose values are secret whatever they look like. */
export const SECRET_KEY_SPELLINGS = [
  'pass',
  'pw',
  'pwd',
  'passwd',
  'password',
  'passwords',
  'Password',
  'userPassword',
  'db-password',
  'DB_PASSWORD',
  'passphrase',
  'secret',
  'secrets',
  'client_secret',
  'clientSecret',
  'client-secret',
  'token',
  'tokens',
  'access_token',
  'accessToken',
  'refresh-token',
  'id_token',
  'auth_token',
  'authToken',
  'api_key',
  'apiKey',
  'API_KEY',
  'api-key',
  'x-api-key',
  'X-Api-Key',
  'apikey',
  'private_key',
  'privateKey',
  'private-key',
  'access_key',
  'accessKey',
  'AWS_SECRET_ACCESS_KEY',
  'AccountKey',
  'sharedAccessKey',
  'signing_key',
  'encryptionKey',
  'dsn',
  'DSN',
  'connection_string',
  'connectionString',
  'connection-string',
  'conn_str',
  'authorization',
  'Authorization',
  'proxy-authorization',
  'cookie',
  'Set-Cookie',
  'session',
  'sessionId',
  'credentials',
  'creds',
  'otp',
  'pin',
  'ssn',
  'cvv',
  'card_number',
  'creditCardNumber',
  'iban',
  'signature',
  'jwt',
] as const;

/** A value under a secret key: plain looking, so only its key can tell. */
export const keyedValue = (i: number) => `Plain-Looking-Value-${i}-${alnum(10)}`;
export const KEYED_VALUES = SECRET_KEY_SPELLINGS.map((_, i) => keyedValue(i));

/** Keys that merely contain a secret word, and values that merely look technical: they must come through. */
export const ORDINARY = {
  passenger: 'Jane Roe',
  tokenizer: 'cl100k_base',
  sessions_count: 4,
  session_count: 7,
  input_tokens: 1200,
  max_tokens: 512,
  token_count: 33,
  password_length: 12,
  keyboard: 'qwerty',
  author: 'R. Roe',
  compass: 'north',
  discardReason: 'duplicate',
  cardinality: 3,
  pinned: true,
  has_password: false,
  designer: 'studio',
  sha: 'e83c5163316f89bfbe7d9ab23ca2e25604af2900',
  hash: 'fcde2b2edba56bf4',
  uuid: '6b1c9b0e-2f7d-4a55-9d7e-1b0c5f0e8a11',
  at: '2026-11-30T10:00:00.000Z',
  order: 'order 1234567890123 shipped',
  url: 'https://example.com/orders?page=2&sort=desc',
  refused: 'token validation failed, session expired',
  version: '1.2.3',
  sku: 'sku-00042',
  error: 'connect ECONNREFUSED 127.0.0.1:5432',
  prose: 'Catalogue item number 12 with a name, shipped at 10:30:00 from Lisbon',
} as const;

/** Strings of ORDINARY that must be found verbatim in whatever kept the payload. */
export const ORDINARY_TEXTS = Object.values(ORDINARY).filter(
  (v): v is Extract<typeof v, string> => typeof v === 'string',
);

/** Every needle: none may appear in anything stored, exported or shown. */
export const NEEDLES: readonly string[] = [
  ...SECRET_FORMATS.map((e) => e.needle),
  ...KEYED_VALUES,
  GCP_KEY_ID,
  String(CARD_NUMBER),
];

/** The needles found in `text` (JSON escapes of `/` and newlines do not hide one: needles have neither). */
export function leaks(text: string): string[] {
  return NEEDLES.filter((needle) => text.includes(needle));
}

/**
 * The corpus as payloads of at most about `budget` characters each (a captured payload is bounded, so one
 * payload per slice keeps every secret inside what is kept): the formats as values of ordinary keys, the secret
 * keys, a JSON text holding secret keys, and the ordinary keys, each slice with a visible marker.
 */
export function corpusPayloads(budget = 2500): Record<string, unknown>[] {
  const items: Array<readonly [string, unknown]> = [
    ...SECRET_FORMATS.map((e, i) => [`note_${i}`, e.text] as const),
    ...SECRET_KEY_SPELLINGS.map((k, i) => [k, KEYED_VALUES[i]] as const),
    [
      'detail',
      JSON.stringify({
        user: 'svc',
        password: KEYED_VALUES[0],
        nested: { api_key: KEYED_VALUES[1] },
      }),
    ],
    ['service_account', { private_key_id: GCP_KEY_ID, client_id: 'orders-prod' }],
    ['amount_card', CARD_NUMBER],
  ];
  const payloads: Record<string, unknown>[] = [];
  let current: Record<string, unknown> = {};
  let size = 0;
  for (const [key, value] of items) {
    const length = JSON.stringify(value).length + key.length;
    if (size > 0 && size + length > budget) {
      payloads.push(current);
      current = {};
      size = 0;
    }
    current[key] = value;
    size += length;
  }
  payloads.push(current);
  return payloads.map((p, i) => ({
    marker: `corpus-slice-${i}-visible`,
    ...p,
    ordinary: ORDINARY,
  }));
}

/** Texts of at most `budget` characters, each several formats in prose: what thrown errors' messages carry. */
export function corpusMessages(budget = 400): string[] {
  const out: string[] = [];
  let current = '';
  for (const e of SECRET_FORMATS) {
    const next = current === '' ? e.text : `${current} | ${e.text}`;
    if (current !== '' && next.length > budget) {
      out.push(current);
      current = e.text;
    } else current = next;
  }
  out.push(current);
  return out;
}
