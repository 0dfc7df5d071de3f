import type { ClassifierRequest, ClassifierStageVerdict } from './classifier-types.ts';
import { type AutoModeClassifier, createTwoStageClassifier } from './classifier-types.ts';

/**
 * A deterministic classifier with no model behind it. The fast stage blocks anything that mentions
 * a risky capability (network, credentials, deletion, privilege, code download, history rewrite);
 * the careful stage lets a flagged call through only when its risk is local and reversible: it runs
 * inside the project, touches no credentials, sends nothing over the network and destroys nothing
 * outside the project. Its verdicts are explainable; for judgement calls plug in a model classifier.
 */

interface Hazard {
  pattern: RegExp;
  reason: string;
  /** Hazards the careful stage never clears. */
  severe: boolean;
}

const hazards: readonly Hazard[] = [
  {
    pattern: /\b(curl|wget|nc|ncat|netcat|socat|ssh|scp|rsync|ftp|telnet)\b|\/dev\/(tcp|udp)\//,
    reason: 'it can send data over the network',
    severe: true,
  },
  {
    pattern: /\b(ping|nslookup|dig|host)\b/,
    reason: 'DNS and ping lookups can carry data out',
    severe: true,
  },
  {
    pattern: /\|\s*(ba|z|da|k)?sh\b|\beval\b|\bsource\b|\bbash\s+-c\b|\bsh\s+-c\b/,
    reason: 'it runs generated code',
    severe: true,
  },
  {
    pattern: /\.ssh\/|\.aws\/|\.gnupg|\.netrc|\.npmrc|\.env\b|id_rsa|id_ed25519|credentials|\.kube\/config/,
    reason: 'it touches credentials',
    severe: true,
  },
  {
    pattern: /\bsudo\b|\bdoas\b|\bsu\s|\bchmod\s+[0-7]*7[0-7]*\b|\bchown\b/,
    reason: 'it changes privileges or ownership',
    severe: true,
  },
  {
    pattern: /\bgit\s+push\b.*(--force|-f\b)|\bgit\s+reset\s+--hard\b|\bgit\s+clean\s+-[a-z]*f/,
    reason: 'it rewrites or discards history',
    severe: false,
  },
  {
    pattern: /\brm\s+-[a-z]*r[a-z]*f|\brm\s+-[a-z]*f[a-z]*r|\bmkfs\b|\bdd\s+if=/,
    reason: 'it deletes recursively or overwrites devices',
    severe: false,
  },
  {
    pattern: /(^|\s)(>|>>)\s*~|\.bashrc|\.zshrc|\.profile|\.gitconfig|\.git\/hooks/,
    reason: 'it changes start-up files or git hooks',
    severe: true,
  },
  { pattern: /\b(npm|pnpm|yarn)\s+(publish|login)|\bdocker\s+push\b/, reason: 'it publishes', severe: true },
];

function describe(request: ClassifierRequest): string {
  const summary =
    typeof request.summary === 'string' && request.summary !== ''
      ? request.summary
      : JSON.stringify(request.input);
  return `${request.toolName} ${summary}`;
}

function fast(request: ClassifierRequest): Promise<ClassifierStageVerdict> {
  const text = describe(request);
  const hit = hazards.find((hazard) => hazard.pattern.test(text));
  return Promise.resolve(
    hit
      ? { decision: 'block', reason: hit.reason }
      : { decision: 'allow', reason: 'no risky capability found' },
  );
}

function careful(request: ClassifierRequest): Promise<ClassifierStageVerdict> {
  const text = describe(request);
  const severe = hazards.find((hazard) => hazard.severe && hazard.pattern.test(text));
  if (severe) return Promise.resolve({ decision: 'block', reason: severe.reason });
  const absolutePaths = text.match(/(?<![\w.])\/[\w./-]+/g) ?? [];
  const outside = absolutePaths.find(
    (path) =>
      path !== request.projectRoot &&
      !path.startsWith(`${request.projectRoot}/`) &&
      !path.startsWith('/dev/null'),
  );
  if (outside)
    return Promise.resolve({ decision: 'block', reason: `it acts on ${outside}, outside the project` });
  return Promise.resolve({
    decision: 'allow',
    reason: 'its effects stay inside the project and can be undone with version control',
  });
}

/** The default classifier: rule-based, two stages, no network. */
export function createRuleBasedClassifier(): AutoModeClassifier {
  return createTwoStageClassifier({ fast, careful });
}
