package integration

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The SQL functions run in databases that other roles share. PostgreSQL
// looks up by name, through the caller's search_path, every operator,
// function and type that an expression names without a schema, and picks an
// object another role made wherever it matches the arguments better than
// pg_catalog's, or wherever the caller put pg_catalog after that role's
// schema. So the file names everything in pg_catalog explicitly, and the
// tests below hold it to that: sqlLint reads each function body (and each
// DO block) of the file and refuses what PostgreSQL would look up by name.
// TestSQLFunctionsHostileRole then checks the same from outside, with
// another role's objects in place.

// sqlToken is a token of a PL/pgSQL body.
type sqlToken struct {
	kind byte   // 'i' identifier (dotted parts joined), 'n' number, 's' string, 'o' operator, 'p' punctuation
	text string // as written; a string's content without its quotes
	line int
}

// sqlOperatorChars are the characters PostgreSQL's operators are made of.
const sqlOperatorChars = "+-*/<>=~!@#%^&|`?"

// tokenizeSQL splits a PL/pgSQL body into tokens, dropping comments. It
// reports what it cannot read as a lint problem rather than guessing.
func tokenizeSQL(body string, firstLine int) (tokens []sqlToken, problems []string) {
	line := firstLine
	for i := 0; i < len(body); {
		c := body[i]
		switch {
		case c == '\n':
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case strings.HasPrefix(body[i:], "--"):
			for i < len(body) && body[i] != '\n' {
				i++
			}
		case strings.HasPrefix(body[i:], "/*"):
			end := strings.Index(body[i+2:], "*/")
			if end < 0 {
				return tokens, append(problems, fmt.Sprintf("line %d: unterminated comment", line))
			}
			line += strings.Count(body[i:i+2+end+2], "\n")
			i += 2 + end + 2
		case c == '\'':
			var s strings.Builder
			j := i + 1
			for ; j < len(body); j++ {
				if body[j] == '\'' {
					if j+1 < len(body) && body[j+1] == '\'' {
						s.WriteByte('\'')
						j++
						continue
					}
					break
				}
				s.WriteByte(body[j])
			}
			if j >= len(body) {
				return tokens, append(problems, fmt.Sprintf("line %d: unterminated string", line))
			}
			if strings.ContainsRune(s.String(), '\\') {
				// standard_conforming_strings, a setting of the caller's,
				// decides what a backslash means.
				problems = append(problems, fmt.Sprintf("line %d: a backslash in a string", line))
			}
			tokens = append(tokens, sqlToken{'s', s.String(), line})
			line += strings.Count(s.String(), "\n")
			i = j + 1
		case c == '$':
			return tokens, append(problems, fmt.Sprintf("line %d: a dollar quote or parameter inside a body", line))
		case c == '"' || isIdentStart(c):
			// An identifier, with the parts of a qualified name joined.
			var name strings.Builder
			j := i
			for {
				if j < len(body) && body[j] == '"' {
					end := strings.IndexByte(body[j+1:], '"')
					if end < 0 {
						return tokens, append(problems, fmt.Sprintf("line %d: unterminated quoted identifier", line))
					}
					name.WriteString(body[j : j+1+end+1])
					j += 1 + end + 1
				} else if j < len(body) && isIdentStart(body[j]) {
					k := j
					for k < len(body) && (isIdentStart(body[k]) || body[k] >= '0' && body[k] <= '9' || body[k] == '$') {
						k++
					}
					name.WriteString(body[j:k])
					j = k
				} else {
					break
				}
				if j+1 < len(body) && body[j] == '.' && (body[j+1] == '"' || isIdentStart(body[j+1])) {
					name.WriteByte('.')
					j++
					continue
				}
				break
			}
			if (c == 'E' || c == 'e') && j == i+1 && j < len(body) && body[j] == '\'' {
				problems = append(problems, fmt.Sprintf("line %d: an escape string", line))
			}
			tokens = append(tokens, sqlToken{'i', name.String(), line})
			i = j
		case c >= '0' && c <= '9':
			j := i
			for j < len(body) && (body[j] >= '0' && body[j] <= '9' || body[j] == '.' && !strings.HasPrefix(body[j:], "..")) {
				j++
			}
			tokens = append(tokens, sqlToken{'n', body[i:j], line})
			i = j
		case c == ':' && strings.HasPrefix(body[i:], ":="), c == ':' && strings.HasPrefix(body[i:], "::"), c == '.' && strings.HasPrefix(body[i:], ".."):
			tokens = append(tokens, sqlToken{'p', body[i : i+2], line})
			i += 2
		case strings.IndexByte(sqlOperatorChars, c) >= 0:
			j := i
			for j < len(body) && strings.IndexByte(sqlOperatorChars, body[j]) >= 0 && !strings.HasPrefix(body[j:], "--") && !strings.HasPrefix(body[j:], "/*") {
				j++
			}
			tokens = append(tokens, sqlToken{'o', body[i:j], line})
			i = j
		case strings.IndexByte("(),;[].:", c) >= 0:
			tokens = append(tokens, sqlToken{'p', string(c), line})
			i++
		default:
			return tokens, append(problems, fmt.Sprintf("line %d: unexpected character %q", line, c))
		}
	}
	return tokens, problems
}

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

// sqlKeywordTypes are the type names that PostgreSQL's grammar itself turns
// into pg_catalog's types, whatever the search_path.
var sqlKeywordTypes = []string{"bigint", "int", "integer", "smallint", "boolean", "bit", "interval", "numeric", "real"}

// sqlBeforeParen are the words a parenthesis may follow in a body without
// naming a function: PL/pgSQL's and SQL's keywords, and the expressions that
// look nothing up by name (COALESCE, GREATEST and LEAST compare with the
// type's own default operator class).
var sqlBeforeParen = []string{
	"operator", "if", "elsif", "while", "return", "and", "or", "not", "then", "else", "when",
	"coalesce", "greatest", "least", "row", "bit", "from", "for", "case", "exists", "values", "select",
}

// sqlForbidden are words whose expressions look an operator up by name,
// with no way to name pg_catalog's (BETWEEN and IN with = and <=, LIKE with
// ~~, NULLIF and IS DISTINCT FROM with =, ANY and ALL with their operator),
// or that would depend on a setting the caller can change (random() on
// setseed), or that build statements at run time.
var sqlForbidden = []string{
	"between", "in", "like", "ilike", "similar", "nullif", "any", "all", "some",
	"random", "setseed", "execute", "overlaps", "collate",
}

// sqlRaiseOptions are the options of RAISE ... USING, whose = is PL/pgSQL's
// syntax, not an operator.
var sqlRaiseOptions = []string{"errcode", "detail", "hint", "message", "column", "constraint", "datatype", "table", "schema"}

// sqlSchemaPlaceholder is the word the file writes for the schema it is
// installed in, where a body names one of the file's own tables or
// sequences; the install replaces it with the schema's name.
const sqlSchemaPlaceholder = "__scru128_schema__"

// sqlUses is what the bodies name, qualified or not: the operators,
// functions and types of pg_catalog that another role could shadow where a
// name is left bare.
type sqlUses struct {
	operators, functions, types map[string]bool
}

// lintSQLBody checks one body (a function's or a DO block's) and records
// what it uses from pg_catalog. dynamic allows EXECUTE, which only the
// install's DO blocks use, on text they build from pg_catalog's functions.
func lintSQLBody(body string, firstLine int, dynamic bool, uses sqlUses) (problems []string) {
	tokens, problems := tokenizeSQL(body, firstLine)
	lower := func(i int) string {
		if i < 0 || i >= len(tokens) {
			return ""
		}
		return strings.ToLower(tokens[i].text)
	}
	isWord := func(i int, words ...string) bool {
		return i >= 0 && i < len(tokens) && tokens[i].kind == 'i' && slices.Contains(words, lower(i))
	}
	checkType := func(i int, context string) {
		if i >= len(tokens) || tokens[i].kind != 'i' {
			problems = append(problems, fmt.Sprintf("line %d: %s: no type", tokens[i-1].line, context))
			return
		}
		name := lower(i)
		if rest, ok := strings.CutPrefix(name, "pg_catalog."); ok {
			uses.types[rest] = true
			return
		}
		if name == "double" && isWord(i+1, "precision") {
			return
		}
		if !slices.Contains(sqlKeywordTypes, name) {
			uses.types[name] = true
			problems = append(problems, fmt.Sprintf("line %d: %s: type %s without pg_catalog", tokens[i].line, context, tokens[i].text))
		}
	}
	declaring := false
	for i, tok := range tokens {
		switch tok.kind {
		case 'o':
			// OPERATOR(pg_catalog.op) names the operator in pg_catalog;
			// the tokenizer keeps "pg_catalog" and "." apart, as an
			// operator follows the dot.
			if isWord(i-4, "operator") && tokens[i-3].text == "(" && isWord(i-2, "pg_catalog") &&
				tokens[i-1].text == "." && i+1 < len(tokens) && tokens[i+1].text == ")" {
				uses.operators[tok.text] = true
				continue
			}
			if tok.text == "=" && isWord(i-1, sqlRaiseOptions...) {
				continue
			}
			// A minus sign before a number where an operand is due is the
			// number's sign: the grammar makes a negative constant of it,
			// and looks no operator up.
			if tok.text == "-" && i+1 < len(tokens) && tokens[i+1].kind == 'n' && operandDue(tokens, i) {
				continue
			}
			uses.operators[tok.text] = true
			problems = append(problems, fmt.Sprintf("line %d: operator %s without OPERATOR(pg_catalog.%s)", tok.line, tok.text, tok.text))
		case 'i':
			name := lower(i)
			switch {
			case name == "declare":
				declaring = true
				continue
			case name == "begin":
				declaring = false
			case name == "in" && (isWord(i-2, "for", "foreach") || isWord(i+1, "access", "row", "share", "exclusive")):
				// FOR x IN ... loops, and LOCK TABLE t IN ... MODE.
			case slices.Contains(sqlForbidden, strings.TrimPrefix(name, "pg_catalog.")) && !(dynamic && name == "execute"):
				problems = append(problems, fmt.Sprintf("line %d: %s", tok.line, strings.ToUpper(name)))
			case name == "case" && !isWord(i+1, "when"):
				problems = append(problems, fmt.Sprintf("line %d: CASE with an operand compares with =", tok.line))
			case name == "is" && isWord(i+1, "distinct") || name == "is" && isWord(i+1, "not") && isWord(i+2, "distinct"):
				problems = append(problems, fmt.Sprintf("line %d: IS DISTINCT FROM", tok.line))
			}
			if declaring && i > 0 && (tokens[i-1].text == ";" || lower(i-1) == "declare") {
				// name [CONSTANT] type [NOT NULL] [:= expression];
				j := i + 1
				if isWord(j, "constant") {
					j++
				}
				checkType(j, "declaration of "+tok.text)
			}
			if i+1 < len(tokens) && tokens[i+1].text == "(" {
				if fn, ok := strings.CutPrefix(name, "pg_catalog."); ok {
					uses.functions[fn] = true
				} else if !slices.Contains(sqlBeforeParen, name) {
					uses.functions[name] = true
					problems = append(problems, fmt.Sprintf("line %d: call of %s without pg_catalog", tok.line, tok.text))
				}
			}
			if isWord(i, "from", "table", "join") && !declaring {
				// A relation: the file's own, in the schema it is
				// installed in, or pg_catalog's.
				if next := lower(i + 1); i+1 < len(tokens) && tokens[i+1].kind == 'i' &&
					!strings.HasPrefix(next, sqlSchemaPlaceholder+".") && !strings.HasPrefix(next, "pg_catalog.") {
					problems = append(problems, fmt.Sprintf("line %d: relation %s without its schema", tok.line, tokens[i+1].text))
				}
			}
		case 'p':
			if tok.text == "::" {
				checkType(i+1, "cast")
				if lower(i+1) == "pg_catalog.regclass" && i > 0 && tokens[i-1].kind == 's' &&
					!strings.HasPrefix(tokens[i-1].text, sqlSchemaPlaceholder+".") {
					problems = append(problems, fmt.Sprintf("line %d: relation %q without its schema", tok.line, tokens[i-1].text))
				}
			}
		}
	}
	return problems
}

// operandDue reports whether tokens[i] stands where an operand is due:
// after an opening parenthesis, a comma, an assignment, a keyword that
// starts an expression, or OPERATOR(...).
func operandDue(tokens []sqlToken, i int) bool {
	if i == 0 {
		return true
	}
	prev := tokens[i-1]
	switch {
	case prev.text == "(" || prev.text == "," || prev.text == ":=":
		return true
	case prev.kind == 'i':
		return slices.Contains([]string{"return", "then", "else", "when", "and", "or", "not", "if", "elsif"}, strings.ToLower(prev.text))
	case prev.text == ")":
		return i >= 6 && strings.EqualFold(tokens[i-6].text, "operator") && tokens[i-5].text == "(" &&
			strings.EqualFold(tokens[i-4].text, "pg_catalog") && tokens[i-3].text == "." && tokens[i-2].kind == 'o'
	}
	return false
}

// sqlDefinition is a CREATE FUNCTION statement or a DO block of the file.
type sqlDefinition struct {
	header string // CREATE ... AS, or DO
	body   string
	line   int // of the body's first line
}

// sqlDefinitions finds the function definitions and DO blocks of file,
// including a definition written inside a DO block's string.
var sqlDefinitionStart = regexp.MustCompile(`(?is)(CREATE\s+OR\s+REPLACE\s+FUNCTION\s.*?\bAS\s+|\bDO\s+)(\$[a-z_]*\$)`)

func sqlDefinitions(file string) []sqlDefinition {
	var out []sqlDefinition
	for offset := 0; ; {
		m := sqlDefinitionStart.FindStringSubmatchIndex(file[offset:])
		if m == nil {
			return out
		}
		header := file[offset+m[2] : offset+m[3]]
		tag := file[offset+m[4] : offset+m[5]]
		bodyStart := offset + m[1]
		end := strings.Index(file[bodyStart:], tag)
		if end < 0 {
			return append(out, sqlDefinition{header: header, body: file[bodyStart:], line: strings.Count(file[:bodyStart], "\n") + 1})
		}
		body := file[bodyStart : bodyStart+end]
		out = append(out, sqlDefinition{header: header, body: body, line: strings.Count(file[:bodyStart], "\n") + 1})
		if strings.HasPrefix(strings.ToUpper(header), "DO") {
			// A DO block may hold a definition in a string: go on inside
			// it after its start, rather than after its end.
			offset = offset + m[1]
		} else {
			offset = bodyStart + end + len(tag)
		}
	}
}

// blankNested replaces the dollar-quoted strings inside a DO block's body,
// which sqlDefinitions reads as definitions of their own, with a plain
// string token of as many lines.
var dollarTag = regexp.MustCompile(`\$[a-z_]*\$`)

func blankNested(body string) string {
	var out strings.Builder
	for {
		loc := dollarTag.FindStringIndex(body)
		if loc == nil {
			return out.String() + body
		}
		tag := body[loc[0]:loc[1]]
		end := strings.Index(body[loc[1]:], tag)
		if end < 0 {
			return out.String() + body
		}
		quoted := body[loc[0] : loc[1]+end+len(tag)]
		out.WriteString(body[:loc[0]] + "'" + strings.Repeat("\n", strings.Count(quoted, "\n")) + "'")
		body = body[loc[1]+end+len(tag):]
	}
}

// lintSQLFile lints every definition of the SQL file and returns what they
// use from pg_catalog.
func lintSQLFile(file string) (uses sqlUses, problems []string) {
	uses = sqlUses{operators: map[string]bool{}, functions: map[string]bool{}, types: map[string]bool{}}
	defs := sqlDefinitions(file)
	if len(defs) == 0 {
		return uses, []string{"no function definitions found"}
	}
	for _, d := range defs {
		isDo := strings.HasPrefix(strings.ToUpper(d.header), "DO")
		body := d.body
		if isDo {
			body = blankNested(body)
		} else {
			header := strings.ToLower(d.header)
			if strings.Contains(header, "from current") {
				problems = append(problems, fmt.Sprintf("line %d: SET ... FROM CURRENT keeps the installer's search_path", d.line))
			}
			if strings.Contains(header, "security definer") {
				problems = append(problems, fmt.Sprintf("line %d: SECURITY DEFINER: no function needs its owner's privileges", d.line))
			}
			// The signature's types are looked up when the file runs, on
			// the installer's search_path.
			sig := strings.TrimSpace(d.header[strings.IndexByte(d.header, '('):])
			for _, typ := range regexp.MustCompile(`(?i)(?:\(|,)\s*\w+\s+([\w.]+)|RETURNS\s+([\w.]+)`).FindAllStringSubmatch(sig, -1) {
				name := strings.ToLower(typ[1] + typ[2])
				if !strings.HasPrefix(name, "pg_catalog.") && !slices.Contains(sqlKeywordTypes, name) {
					problems = append(problems, fmt.Sprintf("line %d: signature type %s without pg_catalog", d.line, name))
				}
			}
		}
		problems = append(problems, lintSQLBody(body, d.line, isDo, uses)...)
	}
	return uses, problems
}

// TestSQLFunctionsQualified lints postgres/scru128.sql: every operator,
// function and type its bodies use is named in pg_catalog, no body builds
// SQL at run time or depends on a setting of the caller's, and no
// function runs as its owner.
func TestSQLFunctionsQualified(t *testing.T) {
	file, err := os.ReadFile(sqlFunctionsFile)
	if err != nil {
		t.Fatal(err)
	}
	uses, problems := lintSQLFile(string(file))
	for _, p := range problems {
		t.Error(p)
	}
	if len(uses.operators) < 10 || len(uses.functions) < 10 {
		t.Errorf("the lint found only operators %v and functions %v: it reads the file wrongly", uses.operators, uses.functions)
	}
	t.Logf("pg_catalog's operators used: %v", slices.Sorted(mapKeys(uses.operators)))
	t.Logf("pg_catalog's functions used: %v", slices.Sorted(mapKeys(uses.functions)))
	t.Logf("pg_catalog's types used: %v", slices.Sorted(mapKeys(uses.types)))
}

func mapKeys(m map[string]bool) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// TestSQLLintRefuses feeds the lint the mistakes it exists to catch, each
// of which PostgreSQL would resolve through the caller's search_path.
func TestSQLLintRefuses(t *testing.T) {
	wrap := func(body string) string {
		return "CREATE OR REPLACE FUNCTION f(id pg_catalog.uuid) RETURNS pg_catalog.text\nLANGUAGE plpgsql AS $$\n" + body + "\n$$;\n"
	}
	for _, tc := range []struct{ name, file string }{
		{"bare operator", wrap("DECLARE x bigint; BEGIN RETURN x & 15; END")},
		{"operator qualified elsewhere", wrap("BEGIN RETURN 1 OPERATOR(public.&) 2; END")},
		{"bare function", wrap("BEGIN RETURN left('abc', 1); END")},
		{"comma substring", wrap("BEGIN RETURN substring('abc', 1, 1); END")},
		{"bare type in a cast", wrap("BEGIN RETURN id::text; END")},
		{"bare type in a declaration", wrap("DECLARE t text; BEGIN RETURN t; END")},
		{"constant of a bare type", wrap("DECLARE t CONSTANT bytea := 'x'; BEGIN RETURN t; END")},
		{"BETWEEN", wrap("DECLARE x bigint; BEGIN IF x BETWEEN 1 AND 2 THEN RETURN 'a'; END IF; END")},
		{"IN list", wrap("DECLARE x bigint; BEGIN IF x IN (1, 2) THEN RETURN 'a'; END IF; END")},
		{"simple CASE", wrap("DECLARE x bigint; BEGIN RETURN CASE x WHEN 1 THEN 'a' END; END")},
		{"NULLIF", wrap("DECLARE x bigint; BEGIN RETURN NULLIF(x, 1); END")},
		{"IS DISTINCT FROM", wrap("DECLARE x bigint; BEGIN IF x IS DISTINCT FROM 1 THEN RETURN 'a'; END IF; END")},
		{"backslash", wrap(`BEGIN RETURN pg_catalog.left('a\b', 1); END`)},
		{"random", wrap("BEGIN RETURN pg_catalog.random(); END")},
		{"dynamic SQL", wrap("BEGIN EXECUTE 'SELECT 1'; END")},
		{"unqualified relation", wrap("BEGIN PERFORM 1 FROM scru128_generate_calls; END")},
		{"unqualified regclass", wrap("BEGIN PERFORM pg_catalog.nextval('scru128_generate_calls'::pg_catalog.regclass); END")},
		{"signature type", "CREATE OR REPLACE FUNCTION f(id uuid) RETURNS pg_catalog.text\nLANGUAGE plpgsql AS $$\nBEGIN RETURN 'a'; END\n$$;\n"},
		{"search_path from the installer", "CREATE OR REPLACE FUNCTION f() RETURNS pg_catalog.text\nLANGUAGE plpgsql SET search_path FROM CURRENT AS $$\nBEGIN RETURN 'a'; END\n$$;\n"},
		{"SECURITY DEFINER", "CREATE OR REPLACE FUNCTION f() RETURNS pg_catalog.text\nLANGUAGE plpgsql SECURITY DEFINER AS $$\nBEGIN RETURN 'a'; END\n$$;\n"},
		{"inside a DO block's function", "DO $install$ BEGIN EXECUTE pg_catalog.format($function$\nCREATE OR REPLACE FUNCTION g() RETURNS pg_catalog.text\nLANGUAGE plpgsql AS $body$\nBEGIN RETURN 1 + 1; END\n$body$\n$function$); END $install$;\n"},
		{"in a DO block", "DO $$ BEGIN PERFORM length('a'); END $$;\n"},
	} {
		if _, problems := lintSQLFile(tc.file); len(problems) == 0 {
			t.Errorf("%s: the lint accepts\n%s", tc.name, tc.file)
		}
	}
	good := wrap("DECLARE x bigint := 1; t pg_catalog.text; BEGIN\n" +
		"  IF x OPERATOR(pg_catalog.>) 0 AND (x, 1) OPERATOR(pg_catalog.<) (2, 2) THEN\n" +
		"    RAISE EXCEPTION 'x %', x USING ERRCODE = 'invalid_text_representation';\n" +
		"  END IF;\n" +
		"  RETURN pg_catalog.left(pg_catalog.encode(pg_catalog.uuid_send(id), 'hex'), (x OPERATOR(pg_catalog.&) 15)::int)::pg_catalog.text;\nEND")
	if uses, problems := lintSQLFile(good); len(problems) != 0 {
		t.Errorf("the lint refuses a qualified body: %v", problems)
	} else if !uses.operators["&"] || !uses.functions["encode"] || !uses.types["text"] {
		t.Errorf("the lint did not record what the body uses: %+v", uses)
	}
}
