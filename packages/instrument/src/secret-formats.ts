// Provider secrets with a fixed prefix (docs/redaction.md): one entry per format, named after the rule of
// gitleaks (config/gitleaks.toml) or trufflehog (pkg/detectors) it follows. A match is a secret. Each lies within
// one run of token characters (secret-values.ts scans only such runs for them), and starts at a word boundary
// with one of its prefixes: a run where no prefix starts is not scanned at all.

/** One format: the literal prefixes it starts with (after a word boundary), and what follows them. */
export type ProviderFormat = { id: string; prefixes: readonly string[]; body: string };

const f = (id: string, prefixes: readonly string[], body: string): ProviderFormat => ({
  id,
  prefixes,
  body,
});
const each = (heads: readonly string[], tails: readonly string[]) =>
  heads.flatMap((h) => tails.map((t) => `${h}${t}`));

export const PROVIDER_FORMATS: readonly ProviderFormat[] = [
  f('anthropic-api-key', ['sk-ant-'], String.raw`[\w-]{8,}`),
  f(
    'openai-api-key',
    each(['sk-'], ['proj-', 'svcacct-', 'admin-', 'None-']),
    String.raw`[\w-]{6,}`,
  ),
  f(
    'stripe-access-token',
    each(['sk_', 'rk_', 'pk_'], ['live_', 'test_', 'prod_']),
    '[A-Za-z0-9]{8,}',
  ),
  f('stripe-webhook-secret', ['whsec_'], '[A-Za-z0-9+/=]{20,}'),
  f('github-fine-grained-pat', ['github_pat_'], String.raw`\w{20,}`),
  f('github-token', ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'], '[A-Za-z0-9]{20,}'),
  f(
    'gitlab-token',
    ['pat', 'dt', 'rt', 'ptt', 'ft', 'imt', 'oas', 'soat', 'ffct', 'agent', 'cbt'].map(
      (k) => `gl${k}-`,
    ),
    String.raw`[\w.-]{15,}`,
  ),
  f('gitlab-runner-registration-token', ['GR1348941'], String.raw`[\w-]{20,}`),
  f('gcp-api-key', ['AIza'], String.raw`[\w-]{35}`),
  f('gcp-oauth-token', ['ya29.'], String.raw`[\w-]{20,}`),
  f('gcp-client-secret', ['GOCSPX-'], String.raw`[\w-]{20,}`),
  f('aws-access-token', ['A3T', 'AKIA', 'ASIA', 'ABIA', 'ACCA'], String.raw`[A-Z0-9]{16,17}\b`),
  f('aws-bedrock-api-key', ['ABSK'], '[A-Za-z0-9+/]{100,}={0,2}'),
  f('slack-token', each(['xox'], ['a-', 'b-', 'p-', 'o-', 's-', 'r-', 'e-']), '[A-Za-z0-9-]{10,}'),
  f('slack-app-token', ['xapp-'], String.raw`\d-[A-Za-z0-9-]{10,}`),
  f(
    'slack-webhook-url',
    ['hooks.slack.com/'],
    String.raw`(?:services|workflows|triggers)/[\w+/-]{20,}`,
  ),
  f(
    'discord-webhook-url',
    ['discord.com/api/webhooks/', 'discordapp.com/api/webhooks/'],
    String.raw`\d+/[\w-]{20,}`,
  ),
  f('npm-access-token', ['npm_'], '[A-Za-z0-9]{36}'),
  f('pypi-upload-token', ['pypi-AgEIcHlwaS5vcmc'], String.raw`[\w-]{20,}`),
  f('huggingface-access-token', ['hf_', 'api_org_'], '[A-Za-z0-9]{30,}'),
  f('sendgrid-api-token', ['SG.'], String.raw`[\w-]{16,}\.[\w-]{16,}`),
  f('twilio-api-key', ['SK'], String.raw`[0-9a-fA-F]{32}\b`),
  f('mailgun-api-key', ['key-'], String.raw`[0-9a-f]{32}\b`),
  f('shopify-token', ['shpat_', 'shpca_', 'shppa_', 'shpss_'], '[a-fA-F0-9]{32}'),
  f('digitalocean-token', ['doo_v1_', 'dop_v1_', 'dor_v1_'], '[a-f0-9]{64}'),
  f('databricks-api-token', ['dapi'], '[a-f0-9]{32}'),
  f(
    'doppler-api-token',
    each(['dp.'], ['pt.', 'st.', 'sa.', 'ct.', 'scim.', 'audit.']),
    '[A-Za-z0-9]{40,}',
  ),
  f('vault-token', ['hvs.', 'hvb.'], String.raw`[\w-]{24,}`),
  f('age-secret-key', ['AGE-SECRET-KEY-1'], '[0-9A-Z]{58}'),
  f('grafana-service-account-token', ['glsa_'], '[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}'),
  f('grafana-cloud-api-token', ['glc_'], '[A-Za-z0-9+/]{32,}={0,2}'),
  f('groq-api-key', ['gsk_'], '[A-Za-z0-9]{40,}'),
  f('xai-api-key', ['xai-'], '[A-Za-z0-9]{60,}'),
  f('perplexity-api-key', ['pplx-'], '[A-Za-z0-9]{40,}'),
  f('replicate-api-token', ['r8_'], '[A-Za-z0-9]{30,}'),
  f('linear-api-key', ['lin_api_'], '[A-Za-z0-9]{40}'),
  f('notion-api-token', ['ntn_'], '[A-Za-z0-9]{40,}'),
  f('postman-api-token', ['PMAK-'], '[a-f0-9]{24}-[a-f0-9]{34}'),
  f('sentry-token', ['sntrys_', 'sntryu_'], '[A-Za-z0-9+/=_]{30,}'),
  f('atlassian-api-token', ['ATATT3'], String.raw`[\w=-]{100,}`),
  f('square-access-token', ['EAAA', 'sq0atp-', 'sq0csp-'], String.raw`[\w-]{22,}`),
  f('facebook-page-access-token', ['EAAM', 'EAAC'], '[A-Za-z0-9]{100,}'),
  f('heroku-api-key-v2', ['HRKU-'], String.raw`[\w-]{58,}`),
  f('pulumi-api-token', ['pul-'], '[a-f0-9]{40}'),
  f('planetscale-token', ['pscale_tkn_', 'pscale_oauth_', 'pscale_pw_'], String.raw`[\w=.-]{32,}`),
  f('rubygems-api-token', ['rubygems_'], '[a-f0-9]{48}'),
  f('openshift-user-token', ['sha256~'], String.raw`[\w-]{43}`),
  f('dynatrace-api-token', ['dt0c01.'], String.raw`[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}`),
  f('flyio-access-token', ['fo1_'], String.raw`[\w-]{43}`),
  f('prefect-api-token', ['pnu_'], '[A-Za-z0-9]{36}'),
  f('new-relic-key', ['NRAK-', 'NRII-', 'NRJS-'], '[A-Za-z0-9-]{19,32}'),
  f('sendinblue-api-token', ['xkeysib-'], '[a-f0-9]{64}-[A-Za-z0-9]{16}'),
  f('artifactory-api-key', ['AKCp'], '[A-Za-z0-9]{69}'),
  f('alibaba-access-key-id', ['LTAI'], '[A-Za-z0-9]{20}'),
  f('mapbox-secret-token', ['sk.eyJ'], String.raw`[\w-]{20,}\.[\w-]{10,}`),
  f('onepassword-service-account-token', ['ops_eyJ'], '[A-Za-z0-9+/]{100,}={0,3}'),
];

/** A format as regex source (no capturing group): a prefix at a word boundary, then the body. */
export function sourceOf(format: ProviderFormat): string {
  const escaped = format.prefixes.map((p) => p.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'));
  return String.raw`\b(?:${escaped.join('|')})${format.body}`;
}
