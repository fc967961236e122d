// The debugging page: it runs oauth1 verify and oauth1 diff, built for
// WebAssembly from cmd/oauth1 (page_js.go), on what was pasted, and shows
// what they find: verify's report drawn from its data (what --json prints),
// and the command's text. Nothing here makes a network request or stores anything;
// the page's Content-Security-Policy forbids both anyway.
"use strict";

// The only file the command can open: the pasted key, for --key-file, while
// one check runs. wasm_exec.js keeps this fs, having none of its own in a
// browser; every other file operation fails.
const keyPath = "/pasted/key.pem";
const memFiles = new Map();
(() => {
	const failure = (code) => { const e = new Error(code); e.code = code; return e; };
	const open = new Map();
	let nextFD = 100;
	const decoder = new TextDecoder();
	let line = "";
	const no = (...args) => args[args.length - 1](failure("ENOSYS"));
	globalThis.fs = {
		constants: { O_WRONLY: -1, O_RDWR: -1, O_CREAT: -1, O_TRUNC: -1, O_APPEND: -1, O_EXCL: -1, O_DIRECTORY: -1 },
		writeSync(fd, buf) { // the Go runtime's own output (a crash): the console
			line += decoder.decode(buf);
			const nl = line.lastIndexOf("\n");
			if (nl >= 0) { console.error(line.slice(0, nl)); line = line.slice(nl + 1); }
			return buf.length;
		},
		write(fd, buf, offset, length, position, cb) {
			if (offset !== 0 || length !== buf.length || position !== null) { cb(failure("ENOSYS")); return; }
			cb(null, this.writeSync(fd, buf));
		},
		open(path, flags, mode, cb) {
			const data = memFiles.get(path);
			if (data === undefined) { cb(failure("ENOENT")); return; }
			if (flags !== 0) { cb(failure("EACCES")); return; }
			const fd = nextFD++;
			open.set(fd, { data, pos: 0 });
			cb(null, fd);
		},
		fstat(fd, cb) {
			const f = open.get(fd);
			if (!f) { cb(failure("EBADF")); return; }
			cb(null, {
				dev: 0, ino: 0, mode: 0o100400, nlink: 1, uid: 0, gid: 0, rdev: 0, size: f.data.length,
				blksize: 4096, blocks: 0, atimeMs: 0, mtimeMs: 0, ctimeMs: 0, isDirectory: () => false,
			});
		},
		read(fd, buffer, offset, length, position, cb) {
			const f = open.get(fd);
			if (!f) { cb(failure("EBADF")); return; }
			const at = position === null ? f.pos : position;
			const chunk = f.data.subarray(at, at + length);
			buffer.set(chunk, offset);
			if (position === null) f.pos += chunk.length;
			cb(null, chunk.length);
		},
		close(fd, cb) { open.delete(fd); cb(null); },
		fsync(fd, cb) { cb(null); },
		chmod: no, chown: no, fchmod: no, fchown: no, ftruncate: no, lchown: no, link: no, lstat: no,
		mkdir: no, readdir: no, readlink: no, rename: no, rmdir: no, stat: no, symlink: no, truncate: no,
		unlink: no, utimes: no,
	};
})();

const $ = (id) => document.getElementById(id);

function base64Bytes(s) {
	if (Uint8Array.fromBase64) return Uint8Array.fromBase64(s);
	const bin = atob(s);
	const out = new Uint8Array(bin.length);
	for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
	return out;
}

// load decompresses and starts the command. The page is ready when
// page_js.go's main calls oauth1Ready; performance.now() is then the time
// since navigation started.
async function load() {
	const gz = base64Bytes($("oauth1-wasm").textContent.trim());
	const stream = new Blob([gz]).stream().pipeThrough(new DecompressionStream("gzip"));
	const wasm = await new Response(stream).arrayBuffer();
	const ready = new Promise((resolve) => { globalThis.oauth1Ready = resolve; });
	const go = new Go();
	const { instance } = await WebAssembly.instantiate(wasm, go.importObject);
	go.run(instance).then(() => failed("the WebAssembly program ended; reload the page"));
	await ready;
	const ms = performance.now();
	globalThis.oauth1LoadMs = ms;
	const version = await oauth1.run(["version"], "", {});
	$("load-status").textContent = "Ready (loaded in " + Math.round(ms) + " ms).";
	$("about").textContent = version.stdout.trim() + " · WebAssembly " + (wasm.byteLength / 1048576).toFixed(1) + " MiB · loaded in " + Math.round(ms) + " ms";
	$("verify").disabled = false;
	$("diff").disabled = false;
	document.body.dataset.state = "ready";
}

function failed(why) {
	$("load-status").textContent = "The checker could not start: " + why;
	$("verify").disabled = true;
	$("diff").disabled = true;
	document.body.dataset.state = "failed";
}

// show puts a command's result on the page, as text: what a command prints
// comes from the pasted input and is never parsed as HTML.
function show(prefix, res, statusByCode) {
	const status = $(prefix + "-status");
	const [cls, text] = statusByCode[res.code] || ["error", "The check failed (exit status " + res.code + ")."];
	status.className = "status " + cls;
	status.textContent = text;
	$(prefix + "-out").textContent = res.stdout;
	$(prefix + "-err").textContent = res.stderr;
	$(prefix + "-err").hidden = res.stderr === "";
	$(prefix + "-result").hidden = false;
	$(prefix + "-result").dataset.code = String(res.code);
}

// el makes an element holding text: what the report holds comes from the
// pasted input and is never parsed as HTML.
function el(tag, text, cls) {
	const e = document.createElement(tag);
	if (text !== undefined) e.textContent = text;
	if (cls) e.className = cls;
	return e;
}

// baseString shows a base string, wrapped, its differing spans marked with
// tag (del in the right one, ins in the client's).
function baseString(label, spans, tag, id) {
	const div = el("div", undefined, "base-row");
	div.append(el("p", label, "base-label"));
	const code = el("code", undefined, "base");
	code.id = id;
	for (const s of spans) code.append(s.changed ? el(tag, s.text) : document.createTextNode(s.text));
	div.append(code);
	return div;
}

// The names of the checks, for the finding's title.
const findingTitles = {
	base_string: "The client signed another base string",
	key: "The base string is right: the client built the key wrong",
	none: "No known mistake found",
};

// render draws verify's report (what --json prints): the right base
// string above the one the client signed, the differences marked, the bug
// named beside them, and the parameters as a table.
function render(rep) {
	const view = $("verify-view");
	const bases = $("verify-bases");
	bases.replaceChildren();
	$("verify-bugs").replaceChildren();
	$("verify-diffs").replaceChildren();
	$("verify-notes").replaceChildren();
	$("verify-params").tBodies[0].replaceChildren();
	if (!rep) { view.hidden = true; return; }
	$("verify-summary").textContent = rep.summary || "";
	$("verify-summary").hidden = !rep.summary;
	if (rep.verdict === "valid") {
		bases.append(baseString("The base string signed", [{ text: rep.base_string }], "span", "base-want"));
	} else if (rep.base_string) {
		const m = rep.marked || { want: [{ text: rep.base_string }] };
		bases.append(baseString("The right base string (what the client should have signed)", m.want, "del", "base-want"));
		if (rep.signed_base_string) {
			const how = rep.signed_from === "given" ? "as you gave it" : "reproduced: its HMAC with the secrets given is the signature";
			bases.append(baseString("The base string the client signed (" + how + ")", m.got, "ins", "base-got"));
		}
	}
	const mk = rep.mistake;
	$("verify-finding").hidden = !mk;
	if (mk) {
		$("verify-finding").dataset.check = mk.check;
		$("verify-finding-title").textContent = findingTitles[mk.check] || "The check";
		if (mk.check === "base_string") {
			for (const b of mk.bugs || []) $("verify-bugs").append(el("li", "It " + b + "."));
			$("verify-cause").textContent = "";
		} else {
			$("verify-cause").textContent = mk.cause;
		}
		$("verify-bugs").hidden = mk.check !== "base_string";
	}
	for (const d of rep.differences || []) {
		const li = el("li");
		li.append(el("strong", d.kind + (d.name ? " " + d.name : "")), document.createTextNode(": " + d.cause));
		$("verify-diffs").append(li);
	}
	$("verify-diffs").hidden = !(rep.differences || []).length;
	if (!mk && rep.differences) { // --base-string given: the differences are the finding
		$("verify-finding").hidden = false;
		$("verify-finding-title").textContent = "How the base strings differ";
		$("verify-bugs").hidden = true;
		$("verify-cause").textContent = "";
	}
	for (const n of rep.notes || []) $("verify-notes").append(el("p", n, "note"));
	for (const q of rep.quirks || []) $("verify-notes").append(el("p", "Known quirk (" + q.provider + ", " + q.name + "): " + q.text, "note"));
	const params = rep.parameters || [];
	for (const p of params) {
		const tr = el("tr");
		tr.append(el("td", p.source), el("td", p.name), el("td", p.value), el("td", p.encoded));
		$("verify-params").tBodies[0].append(tr);
	}
	$("verify-params").hidden = $("verify-params-title").hidden = params.length === 0;
	view.hidden = false;
}

async function runShown(button, fn) {
	button.disabled = true;
	document.body.dataset.busy = "true";
	try {
		await fn();
	} catch (e) {
		console.error(e);
	} finally {
		button.disabled = false;
		delete document.body.dataset.busy;
	}
}

async function verify() {
	const args = ["verify"];
	if ($("any-time").checked) args.push("--any-time");
	if ($("allow-plaintext").checked) args.push("--allow-plaintext");
	if ($("scheme").value) args.push("--scheme", $("scheme").value);
	if ($("body").value) args.push("--data-raw", $("body").value);
	if ($("client-base").value.trim()) args.push("--base-string", $("client-base").value.trim());
	const key = $("public-key").value.trim();
	if (key) {
		memFiles.set(keyPath, new TextEncoder().encode(key + "\n"));
		args.push("--key-file", keyPath);
	}
	const env = {
		OAUTH1_CONSUMER_SECRET: $("consumer-secret").value,
		OAUTH1_TOKEN_SECRET: $("token-secret").value,
		OAUTH1_KEY_PASSWORD: $("key-password").value,
	};
	let res;
	try {
		res = await oauth1.run(args, $("request").value, env);
	} finally {
		memFiles.delete(keyPath);
	}
	show("verify", res, {
		0: ["ok", "Signature valid."],
		1: ["bad", "Signature NOT valid: the report below says why."],
		2: ["error", "Could not check: the message below says what is missing or wrong in the input."],
	});
	const rep = res.report ? JSON.parse(res.report) : null;
	render(rep);
	// Without a report to draw, the command's text is all there is.
	$("verify-details").open = !res.report;
	// What to try next, unless a mistake was named that explains it all.
	const named = rep !== null && rep.mistake !== undefined && ["key", "base_string"].includes(rep.mistake.check);
	$("verify-next").hidden = res.code !== 1 || named;
}

async function diff() {
	const res = await oauth1.run(["diff", "--", $("want").value.trim(), $("got").value.trim()], "", {});
	show("diff", res, {
		0: ["ok", "The base strings are equal."],
		1: ["bad", "The base strings differ:"],
		2: ["error", "Could not compare: the message below says why."],
	});
	const m = res.report ? JSON.parse(res.report).marked : null;
	$("diff-bases").replaceChildren();
	if (m) {
		$("diff-bases").append(baseString("The base string the provider expected", m.want, "del", "diff-want"),
			baseString("The base string the client signed", m.got, "ins", "diff-got"));
	}
	$("diff-bases").hidden = !m;
}

// The example: a request PHP's PECL oauth signed (from the corpus of real
// libraries' base strings), with the X API documentation's secrets.
function example() {
	$("request").value = "GET /1.1/x.json?a=2&a=1 HTTP/1.1\n" +
		"Host: api.example.com\n" +
		'Authorization: OAuth oauth_consumer_key="xvz1evFS4wEEPTGEFPHBog", oauth_nonce="kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg", ' +
		'oauth_signature_method="HMAC-SHA1", oauth_timestamp="1318622958", oauth_token="370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb", ' +
		'oauth_version="1.0", oauth_signature="NP4MUYiueSuzVd0iPw1JACK15b8%3D"\n\n';
	$("consumer-secret").value = "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw";
	$("token-secret").value = "LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE";
	$("scheme").value = "https";
}

function clearAll() {
	for (const el of document.querySelectorAll("textarea, input[type=password], input[type=text]")) el.value = "";
	for (const id of ["verify", "diff"]) {
		$(id + "-result").hidden = true;
		$(id + "-out").textContent = "";
		$(id + "-err").textContent = "";
	}
	render(null);
	$("diff-bases").replaceChildren();
	$("diff-bases").hidden = true;
	$("verify-next").hidden = true;
}

document.addEventListener("DOMContentLoaded", () => {
	$("verify").addEventListener("click", (e) => runShown(e.target, verify));
	$("diff").addEventListener("click", (e) => runShown(e.target, diff));
	$("example").addEventListener("click", example);
	$("clear").addEventListener("click", clearAll);
	$("show-secrets").addEventListener("change", (e) => {
		for (const id of ["consumer-secret", "token-secret", "key-password"]) $(id).type = e.target.checked ? "text" : "password";
	});
	load().catch((e) => failed(String(e)));
});
