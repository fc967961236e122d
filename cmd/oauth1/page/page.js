// The debugging page: it runs oauth1 verify and oauth1 diff, built for
// WebAssembly from cmd/oauth1 (page_js.go), on what was pasted, and shows
// what they print. Nothing here makes a network request or stores anything;
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
	$("verify-next").hidden = res.code !== 1;
}

async function diff() {
	const res = await oauth1.run(["diff", "--", $("want").value.trim(), $("got").value.trim()], "", {});
	show("diff", res, {
		0: ["ok", "The base strings are equal."],
		1: ["bad", "The base strings differ:"],
		2: ["error", "Could not compare: the message below says why."],
	});
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
