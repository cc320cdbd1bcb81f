import PushgateEmulators

/// Service accounts for tests, with keys fixed here (test fixtures, never used
/// elsewhere). Making a 2048-bit RSA key takes about a second in a debug build, on one
/// of the threads every suite's tasks share: two made at once held up the whole test
/// process for seconds.
extension FCMEmulatorAccount {
    /// The account every emulator started in a test uses unless given another.
    public static let testAccount = fixture(id: "0000000000000000000000000000000000000001", pem: firstKey)

    /// A second account, for what the emulator must refuse from a stranger.
    public static let otherTestAccount = fixture(id: "0000000000000000000000000000000000000002", pem: secondKey)

    private static func fixture(id: String, pem: String) -> FCMEmulatorAccount {
        // A fixed key that cannot be read is a broken checkout, not a test outcome.
        guard let account = try? FCMEmulatorAccount(privateKeyPEM: pem, privateKeyID: id) else {
            fatalError("the fixture key \(id) does not read")
        }
        return account
    }

    private static let firstKey = """
        -----BEGIN PRIVATE KEY-----
        MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQCsXYaZFTN9XA7t
        Ttpbyw8lWudtwq4jsmTAKogBWQsWH3749ephoTEqaFW0viz1/kQAJShGPCxc0sxF
        N2tQbCeG75Q4YSItn06+8r2KcmxzSypq2UEKzf2gw+g43EhzxStA3v3LkWx8bhkW
        rLXeqrGOvAJr47hv+lSmoJMxkIVyC70Ru/9tWQeTeyfHDjbtg+0M/l4L7C5kv/X9
        kjhPmzedSxvA9hOdaM+gOFn5WYnDwqkm1ktbyhZTgdOlmfhksC9+UgVpEPUj/MdN
        bf3ph+avvWiceWrkk1KGaQmdvoFDxlt35qRBGu5pfzHyqWkmCNv23bOGM0xpKrXD
        xbEsbAzbAgMBAAECggEABNn/vItWOa8U/yT7DHO4vL/ER9ifoi2WnGTAve5NsOpj
        XoqSyvtd25MNkTAmf9NlApleetZIFrdwPHqE22ylPYJnf6FsSYXJvPeEJ5jKPgHd
        nchOW7Qp8Wknk4IlH+0VfJafj31Lumzhk+Z58Ac0nDnlL42SAW+LC8L1TFiEXmNe
        XuGP+kpuEfUPQS2uXNnadmhqC2o94+QP8qM6wTuwMzugIkgblpGby2xddn6jZUo/
        YERtPLZin1puJURsWuauOhjHGuikUgXrLbM7PhNU4ydVvuiaCOABOsLJSTNbN0vy
        kIb2r8hoMm/SV31ClhwGjJsUUUuSMgMaGYA3TsoE8QKBgQDUYxLl7i5TY1xLwsVF
        JdKLVrOc9AbU+YW1W1i9No8g83mT66ZyiSKLdptXLW2CLT6T4Rjjsna//IhAtah5
        FWjiBikONGxpkyDs7yQqIlodftuuZgRjzOGupr7W52Kc5AuifOY5W+wJdyFpO4Sv
        gr1aD/+TlsRVdBnMFpHQTsUcVQKBgQDPwo+5BRPk5EiChJJIfS9lMQkYdHe33MFC
        kmzpx2JNZjYYFUz218k5AnSkZoHVRIBKNt8mjhW4KyjrtHecFZaHADVhpV2wqou/
        9fZt6xbM0wliv51T3QgJ0NwPL9b6HigxGMQE7aK7GoRZU17ouZmAhNle44OTGDpw
        NUEWweW0bwKBgQCk2H0Lj/HO8VjqyLL6t5+SXOouEU3YMg+wssTOn7E53yBnSkk3
        ru7sFlP9txm/J0Th3J3H5XW8D9LlftnTmWV9wVBOYSwgSX0NyZNlTKJrMFJsK2yO
        1a/5Mhz/ijqFEY9iP9Ulgg5TTm7VUcfrvesgIzi4ohWjSejX+lCUwP7GvQKBgHCg
        wNlEb2x+dPCMfeDePHtXAd9IBD6gZgR47KIvfJMI/fpAUeDfSi6lriYRjADZidKx
        vHdiP1P/0cc1pkHvUhMNgeLVitzjF6+Q327nKw0Out/VkKyN/nWTzDhPbvNYteEn
        09v4F2fnECh8kc8IDrclTdGq9QEg+U0rEYYMx0HxAoGAVziztGaKI3icJQ1ie1W0
        MnDNzF3XKMoLLKu5OlKw/S/rbsLHqrCIlhwi5MWD78JXQdLDEDhI42BDM5S7xJM6
        7jZ8ccJZu3uoTPACJ9SbQaPNEsIVGJYX03QlurZ3ZxNTUQ38KLAC2oMlllmUJT8i
        LUJOR+Lkea8diddczXMwkVY=
        -----END PRIVATE KEY-----
        """

    private static let secondKey = """
        -----BEGIN PRIVATE KEY-----
        MIIEvAIBADANBgkqhkiG9w0BAQEFAASCBKYwggSiAgEAAoIBAQC7CVeqj/ZRT1Hl
        w0lfskj2/33urhEj84eA1Nk3NPvM7GdLPlA07tJ+9gUL7MzB6ueWtN942bQCZkkb
        Q3xGkraVKIUIk6mAtUG1a6tOfnBPs7qGHidQiDEoS6jIgrkctPQgOnnxqY3g1X2t
        3u7n58JXeMj0anW4DHDyqEEGleOi5r5XXZUtMwDbCjx7UqF9GLWFq2PBL43uu5fV
        OjaEfOrGaY+4fMlydUp6kAgpViaCiE5Nc6JHoMV/2NR8bZWXUsJTkGfcH4QP6why
        QRXiOsqKBQUMx+TYoxbc67RLjpzp83V5f2PSeECWI+ZDNq3jBYXAUF0s2csohOLn
        5m0xAP0fAgMBAAECggEAULnBiq5EA+gWUvKsso8CiwjO07txTnEHpQU5E2jc3R+T
        nZgxigch9wY8O19jKLc4aYV7hm+AECERoKDJ/LPJ9irc8Ey7NgAFckYcU+6ijuPl
        t4lAMrP1c4zkNlalisxXKanThAhIYigC7I5x0snmyVYqdcOVN3C3NySDnFIJQ/9S
        VUQ76y7ATA1sDPtwZlegv4lwfpMYZB0GEvjhGTMUW6M+dZHdmoYgfpI4WeM5cXaM
        LM0KnCTiQ+bDaraKglbdEtlESqOZbRYMErcXx/P/suV7iLGbUaqGnCMxi/7or4ay
        gMBD/7fJiPo6lzGb+UNZrTOlgvi9B6b/hpsELIBmoQKBgQDjVf/oPVRQFq+IUCH2
        ZHCppD2v2BH/931VxezHaQKVBU8qbgTzxu4laGTAmFfMzQ8r3Ud+Zokx6LRF1bv1
        MP0lmiAz2shopNLkuFEyJE26TkA5VhmzkRKGXO+U1L5Mey1d5rZDwDd0ptzfB2CI
        fUtYrShSR2f40vtbsRbWaSyTJwKBgQDSnoxiDyRdg5eTcFJgr5ASL+4cGU22TTWW
        B5CWYqq0UxukzKDSiPnSiwDzk9t552559iluLCSIc4d3YNM17Da8zTgrt0XNV+BA
        dqnxixnUdNkZ2m/2NHzi6DFuxWvnGZ1v9vd+KNhKCUW6mZ12Ok86VnYfgeyLkw/K
        GanlYPUhSQKBgAekTWzmGt5yVMY1Q17/81WQgs5Vag17qUfn1lTBr+eIfSfE+P+k
        0T6KqtBajqEAx6DG2G9kTPpTgzPRwna0hd3st2Zm1VPHLpunonsYA1De7oO+5DBI
        ESJZH2iWWitB/L1qUvgmDvcp4MTSf6k25QB/GZricZlIplBnvIfKk0gDAoGAbJEZ
        n/paLnIEkhWWAQy+YQGf5ZANhOkrtBhWKY7Wm3kziLGKPLwquqK4bNZMjfwD8I45
        MPdEJaoXrCuW8/a9CHloePBR5NVlXRVN6JphSCirOC5nBCxuK7Cwun69bjS/+NT/
        ImL/irpY3SUOC8Fm0ZV78iXQvumhe/Xao8hk0zECgYAVSLacpDLgWIEPu+L3zINC
        dFrYHzb3SPD9QYdoHi8/7K6BD37iPfMiEzJVr01blUg3SQYFFdp6xvZvMm38FvlH
        GcQ4GjZ5FUOND+UVf62OpJmwTZTMv0PkUcQf0B0VXJnVlOhywC4A39a/sA0GIRUf
        ECK7aJLbJGB1vZ4XWgri/w==
        -----END PRIVATE KEY-----
        """
}
