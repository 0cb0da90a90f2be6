// Generates ecmascript_cases.json: random ECMAScript patterns and texts with the answer of a
// real ECMAScript engine, whether `new RegExp(pattern, "u")` matches in the text (or whether
// the pattern is a SyntaxError with the u flag). ECMARegexFixtureTests checks the store's own engine
// (Sources/ODataStore/Offline/Query/Regex) against every case.
//
//   node Tests/Fixtures/regex/generate_ecmascript_cases.mjs > Tests/Fixtures/regex/ecmascript_cases.json
//
// Written with Node.js 20 (V8). Deterministic: the same file on every run. The patterns use
// every construct the engine implements (lookbehind of any length, backreferences into and
// out of repeated groups, named groups, lazy quantifiers, non-BMP classes), where Python's
// `re` answers differently or refuses the pattern; the texts are short, so no case is slow.
// The last 300 patterns have one random edit, to check which patterns are refused.
//
// The search is the specification's (RegExpBuiltinExec: with the u flag a failed attempt
// advances lastIndex by a whole code point), made of sticky attempts at each code point
// boundary: V8's own search loop also tries a pattern that can match the empty string
// between the two halves of a surrogate pair (`/\B/u.exec("x😀a")` matches at index 2).

let state = 0x2024_1124n;
function next() {
  // SplitMix64, as the Swift tests' generators.
  state = (state + 0x9e3779b97f4a7c15n) & 0xffffffffffffffffn;
  let z = state;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & 0xffffffffffffffffn;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & 0xffffffffffffffffn;
  return z ^ (z >> 31n);
}
const int = (n) => Number(next() % BigInt(n));
const pick = (items) => items[int(items.length)];
const chance = (percent) => int(100) < percent;

const literals = ["a", "b", "c", "x", "-", " ", "é", "😀", "1", "_", "A"];
const escapes = ["\\d", "\\D", "\\w", "\\W", "\\s", "\\S", "\\.", "\\x61", "\\u0062", "\\u{1F600}", "\\uD83D\\uDE00",
                 "\\n", "\\t", "\\0", "\\cJ", "\\$", "\\/"];
const classes = ["[abc]", "[^a]", "[a-c]", "[^a-c\\d]", "[😀-😂]", "[\\w-]", "[\\s\\d]", "[^]", "[-a]", "[é😀]", "[\\b]",
                 "[\\u{61}-\\u{63}]", "[.]"];

let groups = 0;
let names = [];

function atom(depth) {
  const r = int(20);
  if (r < 7) return pick(literals);
  if (r < 9) return ".";
  if (r < 11) return pick(escapes);
  if (r < 13) return pick(classes);
  if (depth > 0 && r < 17) {
    const kind = int(9);
    if (kind < 3) { groups++; return "(" + disjunction(depth - 1) + ")"; }
    if (kind < 5) return "(?:" + disjunction(depth - 1) + ")";
    if (kind < 6) { groups++; const n = "n" + names.length; names.push(n); return "(?<" + n + ">" + disjunction(depth - 1) + ")"; }
    return pick(["(?=", "(?!", "(?<=", "(?<!"]) + disjunction(depth - 1) + ")";
  }
  if (r < 19 && groups > 0) return chance(70) || names.length === 0 ? "\\" + (1 + int(groups + (chance(10) ? 1 : 0))) : "\\k<" + pick(names) + ">";
  return pick(["^", "$", "\\b", "\\B"]);
}

function quantifier() {
  const q = pick(["*", "+", "?", "{2}", "{0,1}", "{1,}", "{2,3}", "{0}", "{1}"]);
  return q + (chance(30) ? "?" : "");
}

function term(depth) {
  const a = atom(depth);
  const quantifiable = !["^", "$", "\\b", "\\B"].includes(a) && !/^\(\?<?[=!]/.test(a);
  return quantifiable && chance(35) ? a + quantifier() : a;
}

function alternative(depth) {
  let s = "";
  const n = 1 + int(4);
  for (let i = 0; i < n; i++) s += term(depth);
  return s;
}

function disjunction(depth) {
  let s = alternative(depth);
  while (chance(20)) s += "|" + alternative(depth);
  return s;
}

const textAlphabet = ["a", "a", "b", "b", "c", "x", "-", " ", "é", "😀", "1", "_", "A", "\n"];
function text() {
  let s = "";
  const n = int(9);
  for (let i = 0; i < n; i++) s += pick(textAlphabet);
  return s;
}

// A pattern with one random edit (a character removed, or one of the syntax characters
// inserted): mostly SyntaxErrors, some valid patterns of unusual shape.
const syntax = ["(", ")", "[", "]", "{", "}", "|", "*", "+", "?", "\\", "^", "$", "-", ",", "<", ">", "k", "u", "x", "c", "0", "2", "?<", "?="];
function edited(pattern) {
  const chars = Array.from(pattern);
  const at = int(chars.length + 1);
  if (chars.length > 0 && chance(50)) chars.splice(Math.min(at, chars.length - 1), 1);
  else chars.splice(at, 0, pick(syntax));
  return chars.join("");
}

const cases = [];
for (let k = 0; k < 1000; k++) {
  groups = 0;
  names = [];
  const pattern = k < 700 ? disjunction(2) : edited(disjunction(2));
  let re;
  try {
    re = new RegExp(pattern, "u");
  } catch (e) {
    cases.push({ pattern, error: true });
    continue;
  }
  const sticky = new RegExp(pattern, "uy");
  const texts = [];
  for (let t = 0; t < 5; t++) {
    const s = text();
    let found = false;
    for (let i = 0; i <= s.length && !found; i += i < s.length && s.codePointAt(i) > 0xffff ? 2 : 1) {
      sticky.lastIndex = i;
      found = sticky.test(s);
    }
    texts.push([s, found]);
  }
  cases.push({ pattern, texts });
}

// One case per line, so a regenerated file diffs readably.
process.stdout.write("{\"generator\": \"Tests/Fixtures/regex/generate_ecmascript_cases.mjs\",\n" +
  " \"engine\": " + JSON.stringify("Node.js " + process.version + " (V8), RegExp with the u flag") + ",\n" +
  " \"cases\": [\n" + cases.map((c) => "  " + JSON.stringify(c)).join(",\n") + "\n]}\n");
