;;; twittering-mode.el --- a driver of the generator -*- lexical-binding: t -*-

;; Signs each request of stdin (JSON lines) with the OAuth of Emacs's
;; twittering-mode (Debian twittering-mode), as the mode signs its own
;; requests: twittering-oauth-auth-str-access of the method, the URL
;; without its query, and the query's parameters (with a form body's) as
;; name and value pairs "encoded into the same as they will be sent" (as
;; its documentation asks: split at "&" and the first "=", not decoded),
;; with the consumer's and the token's credentials. It chooses its nonce
;; and timestamp.
;;
;; The base string is the message it hands to twittering-hmac-sha1,
;; recorded by an advice on that function.
;;
;; Run: emacs --batch -Q -l twittering-mode -l drivers/twittering-mode.el

(require 'json)

(defvar generate-hashed nil)

(advice-add 'twittering-hmac-sha1 :before
            (lambda (_key message) (setq generate-hashed message)))

(defun generate-pairs (s)
  "The name and value pairs of S, split and not decoded."
  (delq nil
        (mapcar (lambda (kv)
                  (unless (string= kv "")
                    (if (string-match "=" kv)
                        (cons (substring kv 0 (match-beginning 0)) (substring kv (match-end 0)))
                      (cons kv ""))))
                (split-string s "&"))))

(defun generate-sign (r)
  (let* ((url (car (split-string (gethash "url" r) "#")))
         (q (string-search "?" url))
         (base (if q (substring url 0 q) url))
         (params (append (and q (generate-pairs (substring url (1+ q))))
                         (and (string-prefix-p "application/x-www-form-urlencoded"
                                               (downcase (gethash "content_type" r)))
                              (generate-pairs (gethash "body" r)))))
         (h (twittering-oauth-auth-str-access
             (gethash "method" r) base params
             (gethash "consumer_key" r) (gethash "consumer_secret" r)
             (gethash "token" r) (gethash "token_secret" r))))
    (list :got generate-hashed :authorization h)))

(let ((coding-system-for-write 'utf-8))
  (catch 'eof
    (while t
      (let ((line (condition-case nil (read-from-minibuffer "") (error (throw 'eof nil)))))
        (let* ((r (json-parse-string (decode-coding-string line 'utf-8)))
               (out (list :id (gethash "id" r))))
          (setq generate-hashed nil)
          (setq out (append out (condition-case err
                                    (generate-sign r)
                                  (error (list :error (error-message-string err))))))
          (princ (json-serialize out))
          (terpri))))))
