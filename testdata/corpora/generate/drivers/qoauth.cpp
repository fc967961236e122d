// Signs each request of stdin (JSON lines) with QOAuth 2.0.1 (C++, Qt 5 and
// QCA; Debian libqoauth-dev), as its documentation's getResources2 example
// shows: QOAuth::Interface::createParametersString of the URL without its
// query, the method, the token and HMAC-SHA1, given a ParamMap of the
// request's parameters (the query's and a form body's, each name and value
// as it is sent: split at "&" and the first "=", not decoded), for the
// Authorization header. That header holds every parameter of the map: the
// one sent keeps its oauth_ parameters only, so that the request carries
// each parameter once, as a client that read the header would. The URL sent is the URL with inlineParameters() of
// the query's map (ParseForInlineQuery), the body inlineParameters() of the
// body's (ParseForRequestContent). QOAuth knows GET, POST, HEAD, PUT and
// DELETE only: other methods are refused. It chooses its nonce and
// timestamp.
//
// The base string is captured where QOAuth hands it to QCA: this program
// defines QCA::MessageAuthenticationCode::update (exported, so the
// library's call binds to it), keeps the data, and calls QCA's own.
//
// Built at generate time: g++ -std=c++17 -fPIC -rdynamic qoauth.cpp
// $(pkg-config --cflags --libs qoauth qca2-qt5 Qt5Network Qt5Core) -ldl.
#include <dlfcn.h>

#include <QCoreApplication>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtOAuth>
#include <iostream>
#include <string>

static QByteArray hashed;

// QCA::MessageAuthenticationCode::update(const QCA::MemoryRegion &), by its
// symbol.
extern "C" void hookUpdate(QCA::MessageAuthenticationCode *self, const QCA::MemoryRegion &data)
    __asm__("_ZN3QCA25MessageAuthenticationCode6updateERKNS_12MemoryRegionE");

extern "C" void hookUpdate(QCA::MessageAuthenticationCode *self, const QCA::MemoryRegion &data)
{
    using fn = void (*)(QCA::MessageAuthenticationCode *, const QCA::MemoryRegion &);
    static fn real = reinterpret_cast<fn>(dlsym(RTLD_NEXT, "_ZN3QCA25MessageAuthenticationCode6updateERKNS_12MemoryRegionE"));
    hashed = data.toByteArray();
    real(self, data);
}

// The pairs of s, split at "&" and the first "=", as they are.
static void addPairs(QOAuth::ParamMap &m, const QByteArray &s)
{
    for (const QByteArray &kv : s.split('&')) {
        if (kv.isEmpty())
            continue;
        const int eq = kv.indexOf('=');
        if (eq < 0)
            m.insert(kv, QByteArray());
        else
            m.insert(kv.left(eq), kv.mid(eq + 1));
    }
}

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCA::Initializer init;
    std::string line;
    while (std::getline(std::cin, line)) {
        const QJsonObject r = QJsonDocument::fromJson(QByteArray::fromStdString(line)).object();
        QJsonObject out;
        out.insert("id", r.value("id"));
        hashed.clear();
        const QString method = r.value("method").toString();
        QOAuth::HttpMethod m;
        if (method == "GET")
            m = QOAuth::GET;
        else if (method == "POST")
            m = QOAuth::POST;
        else if (method == "HEAD")
            m = QOAuth::HEAD;
        else if (method == "PUT")
            m = QOAuth::PUT;
        else if (method == "DELETE")
            m = QOAuth::DELETE;
        else {
            out.insert("error", "QOAuth has no method " + method);
            std::cout << QJsonDocument(out).toJson(QJsonDocument::Compact).toStdString() << std::endl;
            continue;
        }
        QByteArray url = r.value("url").toString().toUtf8();
        url = url.left(url.indexOf('#') < 0 ? url.size() : url.indexOf('#'));
        const int q = url.indexOf('?');
        const QByteArray base = q < 0 ? url : url.left(q);
        QOAuth::ParamMap query, body, all;
        if (q >= 0)
            addPairs(query, url.mid(q + 1));
        const bool form = r.value("content_type").toString().startsWith("application/x-www-form-urlencoded", Qt::CaseInsensitive);
        if (form)
            addPairs(body, r.value("body").toString().toUtf8());
        all = query;
        for (auto it = body.begin(); it != body.end(); ++it)
            all.insert(it.key(), it.value());

        QOAuth::Interface oauth;
        oauth.setConsumerKey(r.value("consumer_key").toString().toUtf8());
        oauth.setConsumerSecret(r.value("consumer_secret").toString().toUtf8());
        const QByteArray h = oauth.createParametersString(QString::fromUtf8(base), m,
            r.value("token").toString().toUtf8(), r.value("token_secret").toString().toUtf8(),
            QOAuth::HMAC_SHA1, all, QOAuth::ParseForHeaderArguments);
        if (oauth.error() != QOAuth::NoError || hashed.isEmpty()) {
            out.insert("error", QString("QOAuth error %1").arg(oauth.error()));
        } else {
            out.insert("got", QString::fromLatin1(hashed));
            QByteArrayList kept;
            for (const QByteArray &p : h.mid(int(qstrlen("OAuth "))).split(','))
                if (p.startsWith("oauth_"))
                    kept << p;
            out.insert("authorization", QString::fromUtf8("OAuth " + kept.join(',')));
            out.insert("url", QString::fromUtf8(base + (query.isEmpty() ? QByteArray() : oauth.inlineParameters(query, QOAuth::ParseForInlineQuery))));
            if (form)
                out.insert("body", QString::fromUtf8(oauth.inlineParameters(body, QOAuth::ParseForRequestContent)));
        }
        std::cout << QJsonDocument(out).toJson(QJsonDocument::Compact).toStdString() << std::endl;
    }
    return 0;
}
