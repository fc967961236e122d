// Signs each request of stdin (JSON lines) with Qt Network Authorization's
// QOAuth1 (Debian libqt5networkauth5-dev, or qt6-networkauth-dev when built
// against Qt 6), as its documentation shows: a QOAuth1 with the client's
// and the token's credentials and HMAC-SHA1 signs a QNetworkRequest of the
// URL with setup(), given as signing parameters the form body's (a
// QVariantMap, so a repeated name keeps its last value); the body sent is
// that map as QOAuth1::post() writes it (a QUrlQuery, FullyEncoded). GET, HEAD, DELETE and the POST and PUT
// of a form go through setup()'s QNetworkAccessManager::Operation, other
// methods through its verb. QOAuth1 chooses its nonce and timestamp.
//
// The base string is captured where QOAuth1Signature::hmacSha1() hands it
// to Qt Core: this program defines QMessageAuthenticationCode::addData
// (exported, so the library's call binds to it), keeps the data, and
// calls Qt Core's own.
//
// Built at generate time: g++ -std=c++17 -fPIC -rdynamic qoauth1.cpp
// $(pkg-config --cflags --libs Qt5NetworkAuth) -ldl (or Qt6NetworkAuth).
#include <dlfcn.h>

#include <QCoreApplication>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QMessageAuthenticationCode>
#include <QNetworkAccessManager>
#include <QNetworkRequest>
#include <QOAuth1>
#include <QTextStream>
#include <QUrlQuery>
#include <cstdio>
#include <iostream>
#include <string>

static QByteArray hashed;

// QMessageAuthenticationCode::addData(const QByteArray &), by its symbol.
extern "C" void hookAddData(QMessageAuthenticationCode *self, const QByteArray &data)
    __asm__("_ZN26QMessageAuthenticationCode7addDataERK10QByteArray");

extern "C" void hookAddData(QMessageAuthenticationCode *self, const QByteArray &data)
{
    using fn = void (*)(QMessageAuthenticationCode *, const QByteArray &);
    static fn real = reinterpret_cast<fn>(dlsym(RTLD_NEXT, "_ZN26QMessageAuthenticationCode7addDataERK10QByteArray"));
    hashed = data;
    real(self, data);
}

// setup() is protected in Qt 5: clients subclass QOAuth1, as Qt's own
// examples do.
struct Client : QOAuth1 {
    using QOAuth1::setup;
};

static QVariantMap formParams(const QString &body)
{
    QVariantMap m;
    QString b = body;
    b.replace(QLatin1Char('+'), QLatin1Char(' '));
    const auto items = QUrlQuery(b).queryItems(QUrl::FullyDecoded);
    for (const auto &it : items)
        m.insert(it.first, it.second);
    return m;
}

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    // Its warning of every repeated name in a base string.
    QLoggingCategory::setFilterRules("qt.networkauth.*.warning=false");
    std::string line;
    while (std::getline(std::cin, line)) {
        const QJsonObject r = QJsonDocument::fromJson(QByteArray::fromStdString(line)).object();
        QJsonObject out;
        out.insert("id", r.value("id"));
        hashed.clear();
        const QString method = r.value("method").toString();
        const QString ct = r.value("content_type").toString();
        const bool form = ct.startsWith("application/x-www-form-urlencoded", Qt::CaseInsensitive);
        QString url = r.value("url").toString();
        url = url.left(url.indexOf('#') < 0 ? url.size() : url.indexOf('#'));

        Client oauth;
        oauth.setSignatureMethod(QOAuth1::SignatureMethod::Hmac_Sha1);
        oauth.setClientCredentials(r.value("consumer_key").toString(), r.value("consumer_secret").toString());
        oauth.setTokenCredentials(r.value("token").toString(), r.value("token_secret").toString());
        QNetworkRequest req{QUrl(url)};
        if (!ct.isEmpty())
            req.setHeader(QNetworkRequest::ContentTypeHeader, ct);
        const QVariantMap params = form ? formParams(r.value("body").toString()) : QVariantMap();
        if (method == "GET")
            oauth.setup(&req, params, QNetworkAccessManager::GetOperation);
        else if (method == "HEAD")
            oauth.setup(&req, params, QNetworkAccessManager::HeadOperation);
        else if (method == "DELETE")
            oauth.setup(&req, params, QNetworkAccessManager::DeleteOperation);
        else if (method == "POST" && form)
            oauth.setup(&req, params, QNetworkAccessManager::PostOperation);
        else if (method == "PUT" && form)
            oauth.setup(&req, params, QNetworkAccessManager::PutOperation);
        else
            oauth.setup(&req, params, method.toUtf8());
        const QByteArray h = req.rawHeader("Authorization");
        if (hashed.isEmpty()) {
            out.insert("error", "nothing hashed");
        } else {
            out.insert("got", QString::fromLatin1(hashed));
            out.insert("authorization", QString::fromUtf8(h));
            out.insert("url", req.url().toString(QUrl::FullyEncoded));
            if (form) {
                QUrlQuery q;
                for (auto it = params.begin(); it != params.end(); ++it)
                    q.addQueryItem(it.key(), it.value().toString());
                out.insert("body", q.query(QUrl::FullyEncoded));
            }
        }
        std::cout << QJsonDocument(out).toJson(QJsonDocument::Compact).toStdString() << std::endl;
    }
    return 0;
}
